import os
from checks import check, reward
p = '/root/projects/demo/README.md'
check(os.path.isfile(p), p + ' exists')
check(os.path.isfile(p) and open(p).read() == 'hello\n', 'it holds the line hello', open(p).read() if os.path.isfile(p) else None)
reward()
