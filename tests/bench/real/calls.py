# calls.py - the real-program bench's python3 workload: a dict and string
# loop whose time is mostly interpreter calls (str, dict get/set, %).
# usage: python3 calls.py [ITERATIONS]   (default 1500000)
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1500000
d = {}
out = ""
for i in range(n):
    d[str(i % 5000)] = d.get(str(i % 5000), 0) + i
    out = "%d:%d" % (i, i % 5000)
print(len(d), sum(d.values()), out)
