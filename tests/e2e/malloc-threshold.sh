# malloc-threshold.sh - watching a program leaves its allocator as it was:
# glibc maps a request of 128 KB or more (its mmap threshold) unless a mapped
# chunk was freed before, which raises the threshold to that chunk's size for
# the rest of the process.  Debian's /usr/bin/python3 works for a second
# under the agent (levels 0, 2 and 4, the last with every allocation
# tracked and the budget off, a daemon receiving the reports), then asks
# malloc for 131056 bytes (a 128 KB chunk) and reads the chunk's header: it
# must be mapped, as it is when python3 runs alone.  The agent frees large
# scratch tables while it starts and runs; had any come from malloc, the
# program's own large callocs would be carved from the heap and cleared page
# by page from then on.
. tests/e2e/lib.sh
if [ -n "$HS_SAN_RT" ]; then
	echo "SKIP: under a sanitizer runtime the program's malloc is the sanitizer's, not glibc's"
	exit 0
fi
PY=/usr/bin/python3
[ -x "$PY" ] || fail "no $PY (Debian package python3)"

cat >"$HS_TMP/check.py" <<'PY'
import ctypes, sys, time
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
d, t0, n = {}, time.monotonic(), 0
while time.monotonic() - t0 < 1.0:        # the reporter harvests, names, decides meanwhile
    for i in range(20000):
        k = str(i % 500)          # a small dict: python3 itself frees no mapped chunk
        d[k] = d.get(k, 0) + i
    n += 1
p = libc.malloc(131056)
# glibc's chunk header: the size word before the block, bit 1 = mapped
mapped = ctypes.c_size_t.from_address(p - 8).value & 2
open(sys.argv[1], "w").write("%s %d\n" % ("mapped" if mapped else "heap", n))
PY

"$PY" "$HS_TMP/check.py" "$HS_TMP/alone" || fail "python3 alone failed"
read -r v n <"$HS_TMP/alone"
[ "$v" = mapped ] || fail "python3 alone: a 128 KB request was not mapped ($v): this glibc does not behave as the test assumes"
echo "alone: $v ($n rounds)"

# check NAME LEVEL [DAEMON-OPTIONS...]: python3 under hookscoped run, then the verdict.
check() {
	local name=$1 level=$2
	shift 2
	rm -f "$HS_TMP/out"
	start_daemon "$@" run --level "$level" -- "$PY" "$HS_TMP/check.py" "$HS_TMP/out"
	wait_for 60 jq_once '.targets[0].state == "exited"'
	stop_daemon
	[ -s "$HS_TMP/out" ] || fail "$name: python3 under the agent wrote no verdict"
	read -r v n <"$HS_TMP/out"
	echo "$name: $v ($n rounds)"
	[ "$v" = mapped ] ||
		fail "$name: after a second under the agent a 128 KB request came from the heap: the agent freed a chunk malloc had mapped"
}
check "level 0" 0
check "level 2" 2
HOOKSCOPE_MEMORY=full check "level 4, budget off, memory full" 4 --budget off
echo "malloc-threshold: ok"
