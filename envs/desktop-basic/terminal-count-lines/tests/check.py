import os
from checks import check, reward
p = '/root/Desktop/count.txt'
seen = open(p).read().strip() if os.path.isfile(p) else None
check(seen == '37', 'count.txt says 37', seen)
reward()
