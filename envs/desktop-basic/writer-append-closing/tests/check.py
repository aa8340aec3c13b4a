import docx
from checks import check, reward
from osworld_eval.getters import vm_file
paras = [p.text for p in docx.Document(vm_file('/root/Desktop/letter.docx')).paragraphs if p.text.strip()]
check(paras and paras[-1] == 'Kind regards, Ada', 'the last paragraph is the closing line', paras[-1:] )
check(paras[:2] == ['Dear Sam,', 'The parts arrive on Monday.'], 'the letter is otherwise unchanged', paras[:2])
reward()
