import os
from checks import check, reward
names = sorted(os.listdir('/root/Desktop'))
check('final.txt' in names and 'draft.txt' not in names, 'draft.txt is now final.txt', names)
check(open('/root/Desktop/final.txt').read() == 'the plan\n' if 'final.txt' in names else False, 'its content is kept')
reward()
