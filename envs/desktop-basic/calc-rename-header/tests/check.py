import openpyxl
from checks import check, reward
from osworld_eval.getters import vm_file
ws = openpyxl.load_workbook(vm_file('/root/Desktop/sales.xlsx')).worksheets[0]
check(ws['A1'].value == 'Area', 'A1 is Area', ws['A1'].value)
check(ws['B1'].value == 'Sales' and ws['A2'].value == 'North', 'the rest is unchanged', [ws['B1'].value, ws['A2'].value])
reward()
