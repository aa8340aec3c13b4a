import os
from checks import check, reward
check(os.path.isdir('/root/Desktop/Archive'), '/root/Desktop/Archive is a folder', sorted(os.listdir('/root/Desktop')))
check(os.path.isfile('/root/Desktop/notes.txt'), 'notes.txt is still there')
reward()
