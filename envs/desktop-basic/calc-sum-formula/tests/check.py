import openpyxl
from checks import check, reward
from osworld_eval.getters import vm_file
path = vm_file('/root/Desktop/sales.xlsx')
ws = openpyxl.load_workbook(path).worksheets[0]
formula = str(ws['B5'].value or '').replace(' ', '').upper()
check(ws['A5'].value == 'Total', 'A5 says Total', ws['A5'].value)
check(formula == '=SUM(B2:B4)', 'B5 holds =SUM(B2:B4)', ws['B5'].value)
reward()
