from checks import check, reward
lines = [l for l in open('/root/Desktop/notes.txt').read().splitlines() if l.strip()]
check(lines == ['call the bank', 'water the plants', 'buy milk'], 'the list ends with buy milk', lines)
reward()
