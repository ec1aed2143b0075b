#!/bin/sh
# run.sh - `make bench`: what timing one call costs, in one run,
# on one tight loop calling one small non-inlined function
# (tests/bench/engine-loop.c, built here in the ways each row needs):
#   uninstrumented (gcc -O2, and clang -O2 for the NOP build's baseline);
#   the floor: -finstrument-functions hooks that only read rdtsc twice and
#     add to thread-local counters (tests/bench/floor/floor-hooks.c, preloaded);
#   hookscope enabled with each back-end: finstrument (the -finstrument-
#     functions build), patch (prologue relocation of the plain build), nop
#     (clang -fpatchable-function-entry=5 build);
#   hookscope enabled without call paths (HOOKSCOPE_PATHS=0: flat timing),
#     finstrument and patch: what path tracking costs per call;
#   hookscope patch on a function whose relocated first bytes hold a call
#     (HS_LOOP_NESTED=1: the loop calls outer, which calls leaf);
#   hookscope with the site disabled (per back-end);
#   hookscope with every function counted only (HOOKSCOPE_MODE=counted: the
#     counted path the overhead budget demotes cheap functions to: an exact
#     count, no clock read, no shadow-stack frame), patch and finstrument;
#   uftrace record on the -finstrument-functions build (the same binary as
#     the floor and the finstrument rows), and with dynamic patching (-P) on
#     the plain build.
# Each row: median CPU ns per call of one thread (its own CPU clock, so
# other processes sharing the CPUs do not count; uftrace's recorder process
# is not counted either) over the quiet ones of $RUNS runs (tests/bench/quiet.sh:
# every CPU at its fast speed before and after), with 1 and with
# 2 threads, and the command that reproduces it.  Then the ratios and the
# goals (enabled <= 1.3x the floor; a disabled site <= 1 ns over
# uninstrumented; 2 threads cost what 1 does).  Every row runs with
# HOOKSCOPE_BUDGET=off: it measures one path, which the budget would
# otherwise leave for a cheaper one within a few ms.  Goals are reported, not
# asserted.  Then the hooks called directly (timing-overhead.c).
# The header names what this host charges for a page fault, an mprotect
# and a clock read (tests/bench/host-costs.c): the agent's start is made of
# the first two, a timed call of the third.
#   HS_BENCH_CALLS (default 10000000), HS_BENCH_UFTRACE_CALLS (default 2000000:
#   uftrace writes every call to disk).
#   HS_BENCH_ONLY=real runs the real-program section alone (tests/bench/real.sh),
#   HS_BENCH_ONLY=memory the memory section (tests/bench/memory.sh).
O=${O:-build}
[ "${HS_BENCH_ONLY:-}" = real ] && exec env O="$O" sh tests/bench/real.sh
[ "${HS_BENCH_ONLY:-}" = memory ] && exec env O="$O" sh tests/bench/memory.sh
N=${HS_BENCH_CALLS:-10000000}
UN=${HS_BENCH_UFTRACE_CALLS:-2000000}
RUNS=5
B=$O/bench
agent=$(cd "$O" && pwd)/libhookscope.so
sock=/tmp/hookscope-bench-$$.sock   # no daemon: the agent runs as it would with none
tmp=$(mktemp -d /tmp/hookscope-bench.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

die() { echo "bench: $*" >&2; exit 1; }
command -v uftrace >/dev/null 2>&1 ||
	die "uftrace is not installed (it is the peer we measure against): apt-get install uftrace (listed in mk/deps.sh)"
command -v clang >/dev/null 2>&1 ||
	die "clang is not installed (needed for the -fpatchable-function-entry=5 build): apt-get install clang"
src=tests/bench/engine-loop.c
[ -x "$B/engine-loop" ] || die "$B/engine-loop is missing (run 'make bench', not this script alone)"
cc -O2 -g -pthread -finstrument-functions -o "$B/fi-loop" $src ||
	die "cannot build $B/fi-loop"
cc -O2 -g -Wall -Wextra -Werror -shared -fPIC -o "$B/floor-hooks.so" tests/bench/floor/floor-hooks.c ||
	die "cannot build $B/floor-hooks.so"
cc -O2 -Wall -Wextra -Werror -shared -fPIC -pthread -o "$B/idle-thread.so" tests/bench/floor/idle-thread.c ||
	die "cannot build $B/idle-thread.so"
clang -O2 -g -pthread -fpatchable-function-entry=5 -o "$B/nop-loop" $src ||
	die "cannot build $B/nop-loop"
clang -O2 -g -pthread -o "$B/clang-loop" $src || die "cannot build $B/clang-loop"

. tests/bench/quiet.sh
figure() { "$@" 2>/dev/null | sed -n 's/.* ns_per_call=\([0-9.]*\).*/\1/p'; }
median() {   # runs, command... -> median ns_per_call of the quiet runs
	r=$1; shift
	for _ in $(seq "$r"); do
		quietly figure "$@" | tr '\n' ' '; echo
	done | quiet_pick | quiet_median
}

# row KEY LABEL CALLS RUNS COMMAND...: measure COMMAND CALLS 1 and
# COMMAND CALLS 2; sets v_KEY_1, v_KEY_2.
row() {
	key=$1 label=$2 n=$3 r=$4; shift 4
	m1=$(median "$r" "$@" "$n" 1)
	m2=$(median "$r" "$@" "$n" 2)
	[ -n "$m1" ] && [ -n "$m2" ] || die "no figure from: $* $n 1 (run it by hand)"
	eval "v_${key}_1=$m1 v_${key}_2=$m2"
	printf '%-36s %8s %8s   %s %s 1\n' "$label" "$m1" "$m2" "$*" "$n"
}
E="env HOOKSCOPE_SOCKET=$sock HOOKSCOPE_BUDGET=off LD_PRELOAD=$agent"

echo "hookscope: cost of one timed call; CPU ns per call of one thread, median of $RUNS runs' quiet ones,"
echo "$N calls per thread (uftrace: $UN), $(nproc) CPUs; reproduce with the command shown (1 thread;"
echo "the last argument is the thread count)"
echo "host: $("$B/host-costs") ($B/host-costs: CPU time of a page's first touch, an mprotect, a clock read)"
printf '%-36s %8s %8s   %s\n' "row" "1 thread" "2 thr." "reproduce"
row plain  "uninstrumented (gcc -O2)"            "$N" $RUNS "$B/engine-loop"
row clang  "uninstrumented (clang -O2)"          "$N" $RUNS "$B/clang-loop"
row fistub "-finstrument-functions, glibc stubs" "$N" $RUNS "$B/fi-loop"
row floor  "floor (rdtsc x2, TLS counters)"      "$N" $RUNS env LD_PRELOAD="$B/floor-hooks.so" "$B/fi-loop"
row fi     "hookscope finstrument, enabled (4)"  "$N" $RUNS $E HOOKSCOPE_LEVEL=4 "$B/fi-loop"
row patch  "hookscope patch, enabled (level 4)"  "$N" $RUNS $E HOOKSCOPE_LEVEL=4 "$B/engine-loop"
row nop    "hookscope nop, enabled (level 4)"    "$N" $RUNS $E HOOKSCOPE_LEVEL=4 "$B/nop-loop"
row fiflat "hookscope finstrument, flat (4)"     "$N" $RUNS $E HOOKSCOPE_LEVEL=4 HOOKSCOPE_PATHS=0 "$B/fi-loop"
row flat   "hookscope patch, flat (level 4)"     "$N" $RUNS $E HOOKSCOPE_LEVEL=4 HOOKSCOPE_PATHS=0 "$B/engine-loop"
row pcall  "hookscope patch, call in prologue"    "$N" $RUNS $E HOOKSCOPE_LEVEL=4 HS_LOOP_NESTED=1 "$B/engine-loop"
row cnt    "hookscope patch, counted (level 4)"  "$N" $RUNS $E HOOKSCOPE_LEVEL=4 HOOKSCOPE_MODE=counted "$B/engine-loop"
row ficnt  "hookscope finstrument, counted (4)"  "$N" $RUNS $E HOOKSCOPE_LEVEL=4 HOOKSCOPE_MODE=counted "$B/fi-loop"
row fi0    "hookscope finstrument, level 0"      "$N" $RUNS $E HOOKSCOPE_LEVEL=0 "$B/fi-loop"
row fioff  "hookscope finstrument, leaf off (2)" "$N" $RUNS $E HOOKSCOPE_LEVEL=2 "$B/fi-loop"
row patch0 "hookscope patch, site disabled (1)"  "$N" $RUNS $E HOOKSCOPE_LEVEL=1 "$B/engine-loop"
row nop0   "hookscope nop, site disabled (1)"    "$N" $RUNS $E HOOKSCOPE_LEVEL=1 "$B/nop-loop"
row nopraw "clang NOP build, no agent"           "$N" $RUNS "$B/nop-loop"
row uf     "uftrace record (finstrument build)"  "$UN" 3 uftrace record -d "$tmp/uf" "$B/fi-loop"
row ufp    "uftrace record -P leaf (plain build)" "$UN" 3 uftrace record -d "$tmp/uf" -P leaf "$B/engine-loop"

# ratios and goals (awk: floating point)
echo
awk -v plain="$v_plain_1" -v clang="$v_clang_1" -v floor="$v_floor_1" -v floor2="$v_floor_2" \
    -v fi="$v_fi_1" -v fi2="$v_fi_2" -v patch="$v_patch_1" -v patch2="$v_patch_2" \
    -v nop="$v_nop_1" -v nop2="$v_nop_2" -v fi0="$v_fi0_1" -v patch0="$v_patch0_1" \
    -v nop0="$v_nop0_1" -v uf="$v_uf_1" -v uf2="$v_uf_2" -v fistub="$v_fistub_1" \
    -v fioff="$v_fioff_1" -v cnt="$v_cnt_1" -v ficnt="$v_ficnt_1" \
    -v fiflat="$v_fiflat_1" -v flat="$v_flat_1" -v pcall="$v_pcall_1" '
function goal(ok) { return ok ? "met" : "NOT met" }
BEGIN {
	printf "call paths over flat timing (HOOKSCOPE_PATHS=0; the budget turns them off first):\n"
	printf "  finstrument %+.1f ns per call (%.1f flat), patch %+.1f ns (%.1f flat)\n",
	    fi - fiflat, fiflat, patch - flat, flat
	printf "a call among the relocated first bytes (outer: sub $8,%%rsp; call leaf; both timed; its return\n"
	printf "  mispredicted once): %.1f ns per call against %.1f for leaf alone\n", pcall, patch
	printf "counted only (the budget'"'"'s cheaper path; goal: much cheaper than timed):\n"
	# Under 0.5 ns the difference is noise between runs: no ratio.
	less = "within the noise, against"
	if (cnt - plain >= 0.5)
		less = sprintf("%.2fx less than", (patch - plain) / (cnt - plain))
	printf "  patch %+.1f ns over uninstrumented (%s timed %+.1f); finstrument %+.1f ns (timed %+.1f)\n",
	    cnt - plain, less, patch - plain, ficnt - plain, fi - plain
	printf "enabled / floor (goal <= 1.3x; floor %.2f ns, %.2f ns over uninstrumented):\n", floor, floor - plain
	printf "  finstrument %5.2fx  patch %5.2fx  nop %5.2fx  uftrace %5.2fx   goal: finstrument %s, patch %s, nop %s\n",
	    fi / floor, patch / floor, nop / floor, uf / floor,
	    goal(fi <= 1.3 * floor), goal(patch <= 1.3 * floor), goal(nop <= 1.3 * floor)
	printf "  over uninstrumented: floor +%.1f  finstrument +%.1f  patch +%.1f  nop +%.1f  uftrace +%.1f ns\n",
	    floor - plain, fi - plain, patch - plain, nop - clang, uf - plain
	printf "disabled - uninstrumented (goal <= 1 ns):\n"
	printf "  patch (level 1, switch) %+.2f ns: %s;  nop (level 1, NOP back) %+.2f ns vs clang: %s\n",
	    patch0 - plain, goal(patch0 - plain <= 1), nop0 - clang, goal(nop0 - clang <= 1)
	printf "  finstrument level 0 (hooks return at once) %+.2f ns, the build itself (glibc stubs) %+.2f:\n",
	    fi0 - plain, fistub - plain
	printf "    %s against uninstrumented; %+.2f ns against the same build without the agent: %s\n",
	    goal(fi0 - plain <= 1), fi0 - fistub, goal(fi0 - fistub <= 1)
	printf "  finstrument, leaf switched off by the level (static, level 2) %+.2f ns against the same build\n",
	    fioff - fistub
	printf "    without the agent (the per-function switch: lookup, generation check)\n"
	printf "2 threads / 1 thread per call (goal: same, within 10%%):\n"
	printf "  floor %.2f  finstrument %.2f  patch %.2f  nop %.2f  uftrace %.2f   goal: %s\n",
	    floor2 / floor, fi2 / fi, patch2 / patch, nop2 / nop, uf2 / uf,
	    goal(fi2 <= 1.1 * fi && patch2 <= 1.1 * patch && nop2 <= 1.1 * nop)
}'
quiet_summary

echo
echo "hooks called directly (leaf and parent-with-children cost, minus an unhooked call):"
echo "  reproduce: $B/timing-overhead   and   HOOKSCOPE_SOCKET=$sock HOOKSCOPE_BUDGET=off HOOKSCOPE_LEVEL=4 LD_PRELOAD=$agent $B/timing-overhead"
echo "-- glibc's empty hooks:"
"$B/timing-overhead"
echo "-- the agent's hooks:"
HOOKSCOPE_SOCKET=$sock HOOKSCOPE_BUDGET=off HOOKSCOPE_LEVEL=4 LD_PRELOAD="$agent" "$B/timing-overhead"

echo
echo "IPC wrappers (tests/bench/ipc-overhead.c: median CPU ns of 7 runs; with the agent the socketpair"
echo "calls are counted, the /dev/null writes only looked up):"
echo "  reproduce: $B/ipc-overhead   and   HOOKSCOPE_SOCKET=$sock LD_PRELOAD=$agent $B/ipc-overhead"
echo "-- without the agent:"
"$B/ipc-overhead"
echo "-- with the agent:"
HOOKSCOPE_SOCKET=$sock LD_PRELOAD="$agent" "$B/ipc-overhead"
echo
echo "network wrappers (tests/bench/net-overhead.c: median CPU ns of 7 runs; a non-socket write takes the"
echo "same path as the IPC row's, the TCP calls are counted by the network collector):"
echo "  reproduce: $B/net-overhead   and   HOOKSCOPE_SOCKET=$sock LD_PRELOAD=$agent $B/net-overhead"
echo "-- without the agent:"
"$B/net-overhead"
echo "-- with the agent:"
HOOKSCOPE_SOCKET=$sock LD_PRELOAD="$agent" "$B/net-overhead"
# The allocator: what a program pays per malloc+free for having a thread at
# all, and for the agent's wrappers beside it.
echo
echo "malloc+free pairs (tests/bench/alloc-loop.c: median CPU ns of 7 runs):"
echo "  reproduce: $B/alloc-loop;  LD_PRELOAD=$B/idle-thread.so $B/alloc-loop;"
echo "    HOOKSCOPE_SOCKET=$sock HOOKSCOPE_LEVEL=0 HOOKSCOPE_MEMORY=off|sampled LD_PRELOAD=$agent $B/alloc-loop"
printf "  alone:                            "; "$B/alloc-loop"
printf "  an idle thread (multi-threaded):  "; LD_PRELOAD="$B/idle-thread.so" "$B/alloc-loop"
for m in off sampled; do
	printf "  agent, level 0, memory %-9s  " "$m:"
	HOOKSCOPE_SOCKET=$sock HOOKSCOPE_LEVEL=0 HOOKSCOPE_MEMORY=$m LD_PRELOAD="$agent" "$B/alloc-loop"
done
# Power: what the shipped table's sysfs rows cost write/open/close.
echo
echo "power rows: write(), open()+close() of /dev/null, CPU ns (median of 5):"
echo "  reproduce: $B/power-write; HOOKSCOPE_SOCKET=$sock HOOKSCOPE_LEVEL=0 [HOOKSCOPE_POWER_TABLE=/dev/null] LD_PRELOAD=$agent $B/power-write"
printf "  no agent:              "; "$B/power-write"
printf "  agent, no power table: "; HOOKSCOPE_SOCKET=$sock HOOKSCOPE_LEVEL=0 HOOKSCOPE_POWER_TABLE=/dev/null LD_PRELOAD="$agent" "$B/power-write"
printf "  agent, shipped table:  "; HOOKSCOPE_SOCKET=$sock HOOKSCOPE_LEVEL=0 HOOKSCOPE_POWER_TABLE=$(pwd)/collectors/power-apis.table LD_PRELOAD="$agent" "$B/power-write"
sh tests/bench/daemon.sh
# Real programs (python3, sqlite3), their added cost per timed call against
# the floor measured above.
HS_BENCH_FLOOR_NS=$v_floor_1 sh tests/bench/real.sh
# The heap: an allocation-heavy program alone, with an idle thread, under
# heaptrack, under the agent with memory off, sampled and tracking all.
sh tests/bench/memory.sh
