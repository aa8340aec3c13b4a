from checks import check, reward
from osworld_eval.getters import vm_file
from osworld_eval.metrics import odf_text
import os
path = '/root/Desktop/review.odp'
check(os.path.exists(path), 'review.odp was saved')
texts = odf_text(vm_file(path)) if os.path.exists(path) else []
check('Quarterly Review' in texts, 'a slide has the title Quarterly Review', texts[:5])
reward()
