#!/bin/sh
# memory.sh - the memory section of `make bench` (doc/performance.md,
# "Memory"): what tracking the heap costs a real allocation-heavy program.
# Program: Debian's /usr/bin/sqlite3 on tests/bench/real/workload-sql.sh's
# statements (HS_BENCH_MEM_ROWS rows, default 150000: every statement a
# prepare, steps and a finalize, each a few dozen malloc/free calls) in a
# :memory: database.  Rows, each the median of $HS_BENCH_REAL_RUNS runs
# (default 3) of wall time and CPU time (user+sys of the program and its
# helpers, from tests/bench/timed-run.c):
#   alone;
#   with a preloaded library that only starts one idle thread
#     (tests/bench/floor/idle-thread.c): what any in-process agent costs by
#     making the program multi-threaded (glibc's malloc and mutexes then take
#     their atomic paths);
#   under heaptrack (every allocation with its unwound stack, to a file);
#   under the agent, function timing off (HOOKSCOPE_LEVEL=0), no daemon:
#     memory off (its threads, start-up and the allocator wrappers passing
#     every call through), memory sampled (default interval: the memory
#     collector's cost beside them), every allocation tracked
#     (HOOKSCOPE_MEMORY=full).
# Goals (reported, not asserted): sampled within 1.10x of alone; full no slower
# than heaptrack.  The sampled row's excess is split into the thread's share,
# the rest of the agent's presence (memory off over idle thread) and sampling
# (sampled over memory off).  Alone: O=build sh tests/bench/memory.sh, or
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
idle=$(cd "$O" && pwd)/bench/idle-thread.so
timed=$O/bench/timed-run
[ -x "$timed" ] || die "$timed is missing (make bench builds it)"
mkdir -p "$O/bench"
cc -O2 -Wall -Wextra -Werror -shared -fPIC -pthread -o "$idle" tests/bench/floor/idle-thread.c ||
	die "cannot build $idle"     # always: a library left from an older tree would be measured
sh tests/bench/real/workload-sql.sh "$ROWS" >"$tmp/w.sql"

# run_once LABEL CMD...: append "wall cpu" of one run to $tmp/LABEL (timed-run:
# wait4's figures in ns, the program's and its waited-for helpers').
run_once() {
	local label=$1; shift
	"$timed" "$tmp/t" "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; die "$label: $* failed"; }
	sed -n 's/.*wall_ns=\([0-9]*\) user_ns=\([0-9]*\) sys_ns=\([0-9]*\).*/\1 \2 \3/p' "$tmp/t" |
		awk '{ printf "%.4f %.4f\n", $1 / 1e9, ($2 + $3) / 1e9 }' >>"$tmp/$label"
}
# median LABEL COLUMN
median() { cut -d' ' -f"$2" "$tmp/$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

sql="/usr/bin/sqlite3 :memory: .read\\ $tmp/w.sql"
for i in $(seq 1 "$RUNS"); do
	run_once alone /usr/bin/sqlite3 :memory: ".read $tmp/w.sql"
	run_once idle-thread env LD_PRELOAD="$idle" /usr/bin/sqlite3 :memory: ".read $tmp/w.sql"
	for m in off sampled full; do
		run_once "$m" env HOOKSCOPE_SOCKET="$tmp/none.sock" HOOKSCOPE_LEVEL=0 HOOKSCOPE_MEMORY=$m \
			LD_PRELOAD="$agent" /usr/bin/sqlite3 :memory: ".read $tmp/w.sql"
	done
	# Last in its round: its helper may still be writing when it returns.
	run_once heaptrack heaptrack -o "$tmp/ht" /usr/bin/sqlite3 :memory: ".read $tmp/w.sql"
	rm -f "$tmp"/ht*
done
aw=$(median alone 1) ac=$(median alone 2)
echo "memory: Debian sqlite3, $ROWS rows of tests/bench/real/workload-sql.sh in :memory:, median of $RUNS runs"
printf "  %-34s %8s %8s %9s %9s\n" "" "wall s" "CPU s" "wall/alone" "CPU/alone"
for l in alone idle-thread heaptrack off sampled full; do
	w=$(median $l 1) c=$(median $l 2)
	case $l in off | sampled | full) name="hookscope, memory $l" ;; *) name=$l ;; esac
	printf "  %-34s %8s %8s %9s %9s\n" "$name" "$w" "$c" \
		"$(awk -v a="$w" -v b="$aw" 'BEGIN { printf "%.2fx", a / b }')" \
		"$(awk -v a="$c" -v b="$ac" 'BEGIN { printf "%.2fx", a / b }')"
done
sc=$(median sampled 2) fc=$(median full 2) hc=$(median heaptrack 2)
ic=$(median idle-thread 2) oc=$(median off 2)
awk -v s="$sc" -v a="$ac" -v f="$fc" -v h="$hc" 'BEGIN {
	printf "  goals: sampled <= 1.10x alone (CPU): %.2fx %s; full <= heaptrack (CPU): %.2f s vs %.2f s %s\n",
	    s / a, s / a <= 1.10 ? "met" : "NOT met", f, h, f <= h ? "met" : "NOT met" }'
awk -v s="$sc" -v a="$ac" -v i="$ic" -v o="$oc" 'BEGIN {
	printf "  sampled over alone, %+.1f%% of its CPU: an idle thread %+.1f%%, the rest of the agent with memory off %+.1f%%, sampling %+.1f%%\n",
	    (s - a) / a * 100, (i - a) / a * 100, (o - i) / a * 100, (s - o) / a * 100 }'
echo "  reproduce: sh tests/bench/real/workload-sql.sh $ROWS >w.sql;" \
	"HOOKSCOPE_SOCKET=/nonexistent HOOKSCOPE_LEVEL=0 HOOKSCOPE_MEMORY=off|sampled|full LD_PRELOAD=$agent $sql;" \
	"LD_PRELOAD=$idle $sql; heaptrack $sql"
