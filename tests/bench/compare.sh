#!/bin/sh
# compare.sh - the timed-call rows of `make bench` for two builds of the agent,
# side by side in one run: a change to the hot path is judged against its base
# under the same load (on a shared machine, runs minutes apart differ by more
# than the change).
#   sh tests/bench/compare.sh BASE_BUILD NEW_BUILD
# e.g. git worktree add /tmp/base int && make -C /tmp/base -j2 all, then
#   sh tests/bench/compare.sh /tmp/base/build build
# Needs `make bench` to have run once in this tree (build/bench: the loop in
# its plain, -finstrument-functions and clang NOP builds, the floor hooks).
# Rounds interleave floor, base and new, so load hits them alike; per row the
# median, min and max CPU ns per call of one thread over the rounds, then per
# back-end the new-minus-base difference of each round (median and range) and
# both against the same round's floor.  Then callgrind's instructions per call
# inside the loop for both (deterministic, load does not move them); the NOP
# build is not counted (its loop's own entry is a patched site, so callgrind
# never sees the loop entered).
#   HS_CMP_ROUNDS (default 9), HS_BENCH_CALLS (default 10000000),
#   HS_CMP_CALLGRIND=0 to skip callgrind.  The budget is off (HOOKSCOPE_BUDGET=off), as in
# `make bench`: else it demotes the loop's function and no call is timed.
[ $# -eq 2 ] || { echo "usage: sh tests/bench/compare.sh BASE_BUILD NEW_BUILD" >&2; exit 2; }
base=$(cd "$1" && pwd)/libhookscope.so
new=$(cd "$2" && pwd)/libhookscope.so
R=${HS_CMP_ROUNDS:-9}
N=${HS_BENCH_CALLS:-10000000}
B=${O:-build}/bench
sock=/tmp/hookscope-compare-$$.sock
raw=$(mktemp /tmp/hookscope-compare.XXXXXX) || exit 1
cg=$(mktemp -d /tmp/hookscope-compare-cg.XXXXXX) || exit 1
trap 'rm -rf "$raw" "$cg"' EXIT INT TERM

die() { echo "compare: $*" >&2; exit 1; }
for f in "$base" "$new" "$B/engine-loop" "$B/fi-loop" "$B/nop-loop" "$B/floor-hooks.so"; do
	[ -e "$f" ] || die "$f is missing (build both trees; run 'make bench' once here)"
done
command -v python3 >/dev/null 2>&1 || die "python3 is needed for the statistics: apt-get install python3"

ns() {   # command... -> ns_per_call
	"$@" 2>/dev/null | sed -n 's/.* ns_per_call=\([0-9.]*\).*/\1/p'
}
for _ in $(seq "$R"); do
	echo "floor $(ns env LD_PRELOAD="$B/floor-hooks.so" "$B/fi-loop" "$N" 1)"
	echo "plain $(ns "$B/engine-loop" "$N" 1)"
	for t in base new; do
		eval a=\$$t
		E="env HOOKSCOPE_SOCKET=$sock HOOKSCOPE_BUDGET=off HOOKSCOPE_LEVEL=4 LD_PRELOAD=$a"
		echo "patch_$t $(ns $E "$B/engine-loop" "$N" 1)"
		echo "nop_$t $(ns $E "$B/nop-loop" "$N" 1)"
		echo "finstrument_$t $(ns $E "$B/fi-loop" "$N" 1)"
		echo "patch-2-threads_$t $(ns $E "$B/engine-loop" "$N" 2)"
	done
done >"$raw"

echo "CPU ns per call of one thread, $R interleaved rounds of $N calls (base $base, new $new)"
python3 - "$raw" <<'EOF'
import collections, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    k, *v = line.split()
    if not v:
        sys.exit("compare: no figure for %s (run its command by hand)" % k)
    d[k].append(float(v[0]))
for k in sorted(d):
    a = sorted(d[k])
    print("  %-24s median %6.2f  min %6.2f  max %6.2f" % (k, statistics.median(a), a[0], a[-1]))
floor = d["floor"]
for k in ("patch", "nop", "finstrument", "patch-2-threads"):
    b, n = d[k + "_base"], d[k + "_new"]
    diff = sorted(y - x for x, y in zip(b, n))
    rb = statistics.median(x / f for x, f in zip(b, floor))
    rn = statistics.median(y / f for y, f in zip(n, floor))
    print("  %-16s new - base per round: median %+6.2f ns (%+.2f .. %+.2f); / floor: base %.2fx, new %.2fx"
          % (k, statistics.median(diff), diff[0], diff[-1], rb, rn))
EOF

[ "${HS_CMP_CALLGRIND:-1}" = 0 ] && exit 0
command -v valgrind >/dev/null 2>&1 || die "valgrind is not installed (HS_CMP_CALLGRIND=0 skips this part)"
echo "callgrind instructions per call inside loop() (200000 calls):"
ir() {   # preload binary -> Ir per call
	valgrind --tool=callgrind --trace-children=yes --smc-check=all --toggle-collect=loop \
	    --callgrind-out-file="$cg/out.%p" env HOOKSCOPE_SOCKET=$sock HOOKSCOPE_BUDGET=off HOOKSCOPE_LEVEL=4 \
	    LD_PRELOAD="$1" "$2" 200000 1 2>&1 |
	    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | tail -1 | awk '{ printf "%.1f", $1 / 200000 }'
}
echo "  floor $(ir "$B/floor-hooks.so" "$B/fi-loop")"
for t in base new; do
	eval a=\$$t
	echo "  patch_$t $(ir "$a" "$B/engine-loop")  finstrument_$t $(ir "$a" "$B/fi-loop")"
done
