import openpyxl
from checks import check, reward
from osworld_eval.getters import vm_file
wb = openpyxl.load_workbook(vm_file('/root/Desktop/sales.xlsx'))
ws = wb.worksheets[0]
check(ws['B3'].value == 25, 'South (B3) is 25', ws['B3'].value)
check([ws['B2'].value, ws['B4'].value] == [10, 8], 'the other figures are unchanged', [ws['B2'].value, ws['B4'].value])
reward()
