#!/bin/sh
# run.sh - `make bench`: the agent's cost per hooked call, measured against
# the same binary with glibc's empty -finstrument-functions stubs.
# Prints figures (median of 5 runs) and the command that reproduces each.
O=${O:-build}
N=${HS_BENCH_CALLS:-20000000}
RUNS=5
app=$O/apps/callloop
agent=$(cd "$O" && pwd)/libhookscope.so

median() {   # command... -> median ns_per_call over $RUNS runs
	for _ in $(seq $RUNS); do
		"$@" | sed -n 's/.*ns_per_call=\([0-9.]*\).*/\1/p'
	done | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p"
}

row() {   # label, env assignments..., then the app arguments
	label=$1; shift
	m=$(median env "$@")
	printf '%-34s %8s ns/call   reproduce: env %s\n' "$label" "$m" "$*"
}

echo "hookscope agent cost per call, $N calls per thread, median of $RUNS runs ($(nproc) CPUs)"
sock=/tmp/hookscope-bench-$$.sock   # no daemon: the agent runs as it would with none
row "no agent (glibc stubs), 1 thread"  "$app" "$N" 1
row "agent level 2, 1 thread"           HOOKSCOPE_SOCKET=$sock LD_PRELOAD="$agent" "$app" "$N" 1
row "agent level 0 (timing off)"        HOOKSCOPE_SOCKET=$sock HOOKSCOPE_LEVEL=0 LD_PRELOAD="$agent" "$app" "$N" 1
row "no agent, 2 threads"               "$app" "$N" 2
row "agent level 2, 2 threads"          HOOKSCOPE_SOCKET=$sock LD_PRELOAD="$agent" "$app" "$N" 2

echo
echo "hooks called directly (leaf and parent-with-children cost, minus an unhooked call):"
echo "  reproduce: $O/bench/timing-overhead   and   HOOKSCOPE_SOCKET=$sock LD_PRELOAD=$agent $O/bench/timing-overhead"
echo "-- glibc's empty hooks:"
"$O/bench/timing-overhead"
echo "-- the agent's hooks:"
HOOKSCOPE_SOCKET=$sock LD_PRELOAD="$agent" "$O/bench/timing-overhead"

echo
echo "hook engine (experimental, HOOKSCOPE_ENGINE=1) on a plain gcc -O2 loop, $N calls:"
row "no agent"                          "$O/bench/engine-loop" "$N"
row "engine, site enabled (level 4)"    HOOKSCOPE_SOCKET=$sock HOOKSCOPE_ENGINE=1 HOOKSCOPE_LEVEL=4 LD_PRELOAD="$agent" "$O/bench/engine-loop" "$N"
row "engine, site disabled (level 1)"   HOOKSCOPE_SOCKET=$sock HOOKSCOPE_ENGINE=1 HOOKSCOPE_LEVEL=1 LD_PRELOAD="$agent" "$O/bench/engine-loop" "$N"

# The compiler-assisted back-end needs a clang -fpatchable-function-entry=5
# build, which the Makefile does not make: built here, into $O/bench
# (-Dnoipa=noinline: clang ignores gcc's noipa and would inline leaf).
echo
if command -v clang >/dev/null 2>&1 &&
	clang -O2 -fpatchable-function-entry=5 -Dnoipa=noinline -o "$O/bench/nop-loop" tests/bench/engine-loop.c; then
	echo "hook engine, compiler-assisted sites (clang -O2 -fpatchable-function-entry=5 -Dnoipa=noinline engine-loop.c), $N calls:"
	row "no agent (the 5-byte NOP)"         "$O/bench/nop-loop" "$N"
	row "engine nop, site enabled (level 4)"  HOOKSCOPE_SOCKET=$sock HOOKSCOPE_ENGINE=1 HOOKSCOPE_LEVEL=4 LD_PRELOAD="$agent" "$O/bench/nop-loop" "$N"
	row "engine nop, site disabled (level 1)" HOOKSCOPE_SOCKET=$sock HOOKSCOPE_ENGINE=1 HOOKSCOPE_LEVEL=1 LD_PRELOAD="$agent" "$O/bench/nop-loop" "$N"
else
	echo "hook engine, compiler-assisted sites: skipped (no clang to build $O/bench/nop-loop)"
fi
