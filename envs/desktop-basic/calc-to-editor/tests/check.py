from checks import check, reward
seen = open('/root/Desktop/total.txt').read().strip()
check(seen == '8', 'total.txt says 8', seen)
reward()
