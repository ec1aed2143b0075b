#!/bin/sh
# memory.sh - the memory section of `make bench` (doc/performance.md,
# "Memory"): what tracking the heap costs a real allocation-heavy program.
# Program: Debian's /usr/bin/sqlite3 on tests/bench/real/workload-sql.sh's
# statements (HS_BENCH_MEM_ROWS rows, default 150000: every statement a
# prepare, steps and a finalize, each a few dozen malloc/free calls) in a
# :memory: database.  Rows, each the median of $HS_BENCH_REAL_RUNS runs
# (default 3) of wall time and CPU time (user+sys of the program and its
# helpers, from /usr/bin/time):
#   alone;
#   under heaptrack (every allocation with its unwound stack, to a file);
#   under the agent, memory sampled (default interval), function timing off
#     (HOOKSCOPE_LEVEL=0: the memory collector's cost alone), no daemon;
#   the same, every allocation tracked (HOOKSCOPE_MEMORY=full).
# Goals (reported, not asserted): sampled within 1.10x of alone; full no slower
# than heaptrack.  Alone: O=build sh tests/bench/memory.sh, or
# HS_BENCH_ONLY=memory make bench.
O=${O:-build}
RUNS=${HS_BENCH_REAL_RUNS:-3}
ROWS=${HS_BENCH_MEM_ROWS:-150000}
agent=$(cd "$O" && pwd)/libhookscope.so
tmp=$(mktemp -d /tmp/hookscope-bench-m.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
die() { echo "bench: $*" >&2; exit 1; }
command -v heaptrack >/dev/null 2>&1 || die "heaptrack is not installed (the peer we measure against): make deps"
[ -x /usr/bin/sqlite3 ] || die "/usr/bin/sqlite3 is not installed: make deps"
[ -f "$agent" ] || die "$agent is missing (make first)"
sh tests/bench/real/workload-sql.sh "$ROWS" >"$tmp/w.sql"

# run_once LABEL CMD...: append "wall cpu" of one run to $tmp/LABEL.
run_once() {
	local label=$1; shift
	/usr/bin/time -o "$tmp/t" -f "%e %U %S" "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; die "$label: $* failed"; }
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$tmp/t" >>"$tmp/$label"
}
# median LABEL COLUMN
median() { cut -d' ' -f"$2" "$tmp/$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

sql="/usr/bin/sqlite3 :memory: .read\\ $tmp/w.sql"
for i in $(seq 1 "$RUNS"); do
	run_once alone /usr/bin/sqlite3 :memory: ".read $tmp/w.sql"
	run_once heaptrack heaptrack -o "$tmp/ht" /usr/bin/sqlite3 :memory: ".read $tmp/w.sql"
	rm -f "$tmp"/ht*
	for m in sampled full; do
		run_once "$m" env HOOKSCOPE_SOCKET="$tmp/none.sock" HOOKSCOPE_LEVEL=0 HOOKSCOPE_MEMORY=$m \
			LD_PRELOAD="$agent" /usr/bin/sqlite3 :memory: ".read $tmp/w.sql"
	done
done
aw=$(median alone 1) ac=$(median alone 2)
echo "memory: Debian sqlite3, $ROWS rows of tests/bench/real/workload-sql.sh in :memory:, median of $RUNS runs"
printf "  %-34s %8s %8s %9s %9s\n" "" "wall s" "CPU s" "wall/alone" "CPU/alone"
for l in alone heaptrack sampled full; do
	w=$(median $l 1) c=$(median $l 2)
	printf "  %-34s %8s %8s %9s %9s\n" "$l" "$w" "$c" \
		"$(awk -v a="$w" -v b="$aw" 'BEGIN { printf "%.2fx", a / b }')" \
		"$(awk -v a="$c" -v b="$ac" 'BEGIN { printf "%.2fx", a / b }')"
done
sc=$(median sampled 2) fc=$(median full 2) hc=$(median heaptrack 2)
awk -v s="$sc" -v a="$ac" -v f="$fc" -v h="$hc" 'BEGIN {
	printf "  goals: sampled <= 1.10x alone (CPU): %.2fx %s; full <= heaptrack (CPU): %.2f s vs %.2f s %s\n",
	    s / a, s / a <= 1.10 ? "met" : "NOT met", f, h, f <= h ? "met" : "NOT met" }'
echo "  reproduce: sh tests/bench/real/workload-sql.sh $ROWS >w.sql;" \
	"HOOKSCOPE_SOCKET=/nonexistent HOOKSCOPE_LEVEL=0 HOOKSCOPE_MEMORY=sampled|full LD_PRELOAD=$agent $sql; heaptrack $sql"
