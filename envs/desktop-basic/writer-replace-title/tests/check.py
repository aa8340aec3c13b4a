import docx
from checks import check, reward
from osworld_eval.getters import vm_file
paras = [p.text for p in docx.Document(vm_file('/root/Desktop/report.docx')).paragraphs if p.text.strip()]
check(paras[:1] == ['Final Report'], 'the first line is Final Report', paras[:1])
check('Revenue grew by 4%.' in paras, 'the body is kept', paras)
reward()
