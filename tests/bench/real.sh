#!/bin/sh
# real.sh - the real-program section of `make bench` (doc/performance.md,
# "Real programs"): what watching a program nobody here wrote costs it.
# Programs:
#   Debian's /usr/bin/python3 on tests/bench/real/calls.py (a call-heavy dict
#     and string loop, 1.5 million iterations);
#   a python3 with its full symbol table (pyenv's build of Debian's python
#     version, found by its .symtab; HS_BENCH_PYTHON_FULL=PATH picks one,
#     "none" skips it) on the same script;
#   Debian's /usr/bin/sqlite3 on the statements tests/bench/real/workload-sql.sh
#     writes (inserts and queries in a :memory: database);
#   Debian's python3 on calls.py four times as long (levels 2 and 4, default
#     budget): the cost once the start-up no longer weighs;
#   Debian's python3 -c pass (levels 1, 2, 4): the agent's start-up alone,
#     printed as CPU ms added.
# Each uninstrumented, then under `hookscoped run --level 2` and `--level 4`
# (one daemon per run, started here and stopped after it), and with the
# default budget and `--budget off` when hookscoped's help lists --budget
# (then also at level 1: every site patched, little timed: the fixed costs).
# The `--budget off` rows keep the memory collector sampled
# (HOOKSCOPE_MEMORY=sampled): with the budget off levels 3-4 would track
# every allocation with its stack, and those rows measure the hooks.
# The target runs under timed-run (tests/bench/timed-run.c), which writes its
# wall time and CPU time (user+sys, wait4) to a file; then the daemon's JSON
# report of the target gives its timed calls (functions.calls_total), patched
# sites and the agent's calibrated per-call cost (overhead_ps).
# HS_BENCH_PY_ITERATIONS (default 1500000) sets the python loop's length;
# HS_BENCH_RAW=FILE appends every run's figures to FILE, one line each.
# Every row: the fastest wall and CPU of $HS_BENCH_REAL_RUNS runs (default 5)
# made while every CPU ran at its fast speed (below), interleaved with the
# other rows of its program (one round runs each once),
# the ratios to the fastest uninstrumented run, the calls (median), and
#   ns added per timed call = (CPU instrumented - CPU uninstrumented) / calls,
# printed against the floor (tests/bench/run.sh's floor row, measured here
# again in quiet runs; HS_BENCH_FLOOR_NS, run.sh's figure, is printed beside
# it), then the command that
# reproduces it.  Goals (reported, not asserted): default budget within 1.10x
# of uninstrumented; added ns per timed call within 1.3x of the floor.
# Every run (the floor's too) is made quietly (tests/bench/quiet.sh): a row
# takes its figures from its quiet runs and says how many it had ("q"); one
# with none takes all and is marked "*".
# Alone: O=build sh tests/bench/real.sh (after `make all build/bench/timed-run
# build/bench/phase-probe`),
# or HS_BENCH_ONLY=real make bench.
O=${O:-build}
RUNS=${HS_BENCH_REAL_RUNS:-5}
PYN=${HS_BENCH_PY_ITERATIONS:-1500000}
B=$O/bench
case $RUNS in '' | *[!0-9]* | 0) echo "bench: HS_BENCH_REAL_RUNS must be a positive integer" >&2; exit 1 ;; esac
tmp=$(mktemp -d /tmp/hookscope-bench-r.XXXXXX) || exit 1
dpid=""
cleanup() { [ -n "$dpid" ] && kill "$dpid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM
die() { echo "bench: $*" >&2; exit 1; }
for t in hookscoped hookscope libhookscope.so bench/timed-run; do
	[ -x "$O/$t" ] || [ -f "$O/$t" ] || die "$O/$t is missing (run 'make bench')"
done
command -v jq >/dev/null 2>&1 || die "jq is not installed (mk/deps.sh): apt-get install jq"
[ -x /usr/bin/python3 ] || die "/usr/bin/python3 is missing: apt-get install python3"
[ -x /usr/bin/sqlite3 ] || die "/usr/bin/sqlite3 is missing: apt-get install sqlite3"
HSD=$(cd "$O" && pwd)/hookscoped
HSC=$(cd "$O" && pwd)/hookscope
TIMED=$(cd "$B" && pwd)/timed-run
here=$(pwd)
PYSCRIPT=$here/tests/bench/real/calls.py
nport=0   # a new port per daemon: no waiting for the last one's to be free
. tests/bench/quiet.sh

# The floor: one timed call's least cost (run.sh's floor row), measured here
# in quiet runs as the rows are.
floor_row=${HS_BENCH_FLOOR_NS:-}
{
	src=tests/bench/engine-loop.c
	[ -x "$B/fi-loop" ] || cc -O2 -g -pthread -finstrument-functions -o "$B/fi-loop" $src ||
		die "cannot build $B/fi-loop"
	[ -f "$B/floor-hooks.so" ] || cc -O2 -g -Wall -Wextra -Werror -shared -fPIC \
		-o "$B/floor-hooks.so" tests/bench/floor/floor-hooks.c || die "cannot build $B/floor-hooks.so"
	floor_once() {
		env LD_PRELOAD="$B/floor-hooks.so" "$B/fi-loop" 10000000 1 2>/dev/null |
			sed -n 's/.* ns_per_call=\([0-9.]*\).*/\1/p'
	}
	# The median of the quiet runs, or of all five when none was quiet.
	floor=$(for _ in 1 2 3 4 5; do quietly floor_once | tr '\n' ' '; echo; done | quiet_pick | quiet_median)
	[ -n "$floor" ] || die "no floor figure from: env LD_PRELOAD=$B/floor-hooks.so $B/fi-loop 10000000 1"
	floor_from="env LD_PRELOAD=$B/floor-hooks.so $B/fi-loop 10000000 1, median of 5 runs' quiet ones"
	[ -z "$floor_row" ] || floor_from="$floor_from; the floor row above: $floor_row ns"
}

# The full-symbol python: pyenv's build of Debian's python version whose
# libpython (or executable) has a .symtab.
has_symtab() { readelf -S "$1" 2>/dev/null | grep -q '\.symtab'; }
pyfull=${HS_BENCH_PYTHON_FULL:-}
if [ -z "$pyfull" ]; then
	ver=$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
	for root in "${PYENV_ROOT:-$HOME/.pyenv}" /root/.pyenv; do
		for p in "$root"/versions/"$ver".*/bin/python"$ver"; do
			[ -x "$p" ] || continue
			lib=$(ldd "$p" 2>/dev/null | sed -n 's/.*libpython[^ ]* => \([^ ]*\) .*/\1/p')
			if has_symtab "${lib:-$p}"; then pyfull=$p; break 2; fi
		done
	done
fi
pyfull_why="none on this machine (no pyenv build of python $(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])') with a .symtab;
  HS_BENCH_PYTHON_FULL=PATH names one)"
[ "$pyfull" = none ] && pyfull="" pyfull_why="skipped (HS_BENCH_PYTHON_FULL=none)"
[ -z "$pyfull" ] || [ -x "$pyfull" ] || die "HS_BENCH_PYTHON_FULL=$pyfull is not an executable"

# Where the budget option goes, if this build has one.
help=$("$HSD" --help 2>&1)
budget_at=""
if printf '%s\n' "$help" | sed -n '/^run options:/,/^[a-z].*options:/p' | grep -q -- '--budget'; then
	budget_at=run
elif printf '%s\n' "$help" | grep -q -- '--budget'; then
	budget_at=daemon
fi

quoted() {   # ARGS...: as a shell would need them typed
	for a in "$@"; do
		case $a in *[!A-Za-z0-9_./:=,+-]*) printf "'%s' " "$a" ;; *) printf '%s ' "$a" ;; esac
	done
}
field() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" "$2"; }

# plain_once OUT PROG ARGS...: one uninstrumented run.
plain_once() {
	out=$1; shift
	rm -f "$out"
	"$TIMED" "$out" "$@" >/dev/null 2>"$tmp/err" ||
		die "uninstrumented run failed: $TIMED $out $* ($(cat "$tmp/err"))"
}

# hs_once OUT LEVEL BUDGET PROG ARGS...: one run under hookscoped run; the
# run's report figures are appended to OUT as "calls= sites= ovh=".
hs_once() {
	out=$1 lvl=$2 bud=$3; shift 3
	nport=$((nport + 1)); P=$(( 20000 + $$ % 20000 + 40 + nport % 50 ))
	rm -f "$out" "$tmp/a.sock"
	set -- $(hs_args "$lvl" "$bud") -- "$TIMED" "$out" "$@"
	env $(hs_env "$bud") "$HSD" --port "$P" --socket "$tmp/a.sock" --report-dir "$tmp" $(hs_pre "$bud") \
		run "$@" >/dev/null 2>"$tmp/d.log" &
	dpid=$!
	i=0
	until [ -e "$out" ]; do
		kill -0 "$dpid" 2>/dev/null || die "hookscoped stopped before its target: $(cat "$tmp/d.log")"
		i=$((i + 1)); [ $i -le 6000 ] || die "no result after 600 s from: $HSD run $*"
		sleep 0.1
	done
	[ "$(field status "$out")" = 0 ] || die "target failed ($(cat "$out")): $(cat "$tmp/d.log")"
	pid=$(field pid "$out")
	cli="$HSC -t 10 ws://127.0.0.1:$P"
	# The agent's last report arrives as it exits: wait until the daemon says so.
	i=0
	until $cli --json 2>/dev/null |
		jq -e --argjson p "$pid" '[.targets[] | select(.pid == $p and .state == "exited")] | length == 1' >/dev/null; do
		i=$((i + 1)); [ $i -le 100 ] || die "the daemon never saw target $pid exit: $(cat "$tmp/d.log")"
		sleep 0.1
	done
	$cli --target "$pid" --dump - --format json >"$tmp/r.json" 2>"$tmp/err" ||
		die "no report of target $pid: $(cat "$tmp/err")"
	jq -r --argjson p "$pid" '.sessions[] | select(.pid == $p) |
		"calls=\(.functions.calls_total // 0) sites=\([.sites[] | .active] | add // 0) ovh=\(.overhead_ps)"' \
		"$tmp/r.json" >>"$out"
	kill "$dpid"; wait "$dpid" 2>/dev/null; dpid=""
}
hs_args() {   # LEVEL BUDGET: the run options
	printf '%s %s' --level "$1"
	[ "$budget_at" = run ] && [ "$2" != default ] && printf ' %s %s' --budget "$2"
	return 0
}
hs_pre() { [ "$budget_at" = daemon ] && [ "$1" != default ] && printf '%s %s' --budget "$1"; return 0; }
hs_env() { [ "$1" = off ] && printf '%s' HOOKSCOPE_MEMORY=sampled; return 0; }   # BUDGET: the target's

# run_once KEY LEVEL|plain BUDGET PROG ARGS...: one run of row KEY, its
# figures appended to $tmp/all.KEY as one line.
run_once() {
	rkey=$1 lvl=$2 bud=$3; shift 3
	if [ "$lvl" = plain ]; then
		quietly plain_once "$tmp/o" "$@" >"$tmp/q"
		echo "calls=0 sites=0 ovh=0" >>"$tmp/o"
	else
		quietly hs_once "$tmp/o" "$lvl" "$bud" "$@" >"$tmp/q"
	fi
	cat "$tmp/q" >>"$tmp/o"
	tr '\n' ' ' <"$tmp/o" >>"$tmp/all.$rkey"; echo >>"$tmp/all.$rkey"
	[ -z "${HS_BENCH_RAW:-}" ] || { printf '%s ' "$rkey"; tail -1 "$tmp/all.$rkey"; } >>"$HS_BENCH_RAW"
}

# row KEY LABEL LEVEL|plain BUDGET PROG ARGS...: row KEY's line from its
# quiet runs (all when none was): the fastest wall and CPU, the median of
# the rest.
row() {
	rkey=$1 label=$2 lvl=$3 bud=$4; shift 4
	runs=$tmp/all.$rkey
	nq=$(grep -c 'quiet=1' "$runs")
	if [ "$nq" -gt 0 ]; then
		grep 'quiet=1' "$tmp/all.$rkey" >"$tmp/q.$rkey"; runs=$tmp/q.$rkey; qmark=$nq
	else
		qmark="0*"
	fi
	wall=$(field wall_ns "$runs" | sort -n | head -1)
	cpu=$(sed -n 's/.*user_ns=\([0-9]*\) sys_ns=\([0-9]*\).*/\1 \2/p' "$runs" |
		awk '{ printf "%.0f\n", $1 + $2 }' | sort -n | head -1)
	calls=$(field calls "$runs" | quiet_median)
	sites=$(field sites "$runs" | quiet_median)
	ovh=$(field ovh "$runs" | quiet_median)
	[ "$lvl" = plain ] && eval "w_$rkey=$wall c_$rkey=$cpu"
	base=${rkey%%_*}
	eval "bw=\$w_$base bc=\$c_$base"
	awk -v l="$label" -v w="$wall" -v c="$cpu" -v bw="$bw" -v bc="$bc" -v n="$calls" \
	    -v s="$sites" -v o="$ovh" -v f="$floor" -v q="$qmark" -v plain="$([ "$lvl" = plain ] && echo 1)" 'BEGIN {
		if (plain) {
			printf "%-34s %7.2f %7.2f %6s %6s %11s %6s %7s %7s %3s\n", l, w / 1e9, c / 1e9, "1.00", "1.00", "-", "-", "-", "-", q
			exit
		}
		# Fewer calls than this and the run-to-run noise is the figure.
		add = n >= 100000 ? (c - bc) / n : 0
		printf "%-34s %7.2f %7.2f %6.2f %6.2f %11d %6d %7.1f %7s %3s\n", l, w / 1e9, c / 1e9, w / bw, c / bc, n, s,
		    o / 1000, (n >= 100000 ? sprintf("%.1f", add) : "-"), q
	}'
	cmd=$(quoted "$@" | sed "s|$tmp/|/tmp/|g"); cmd=${cmd% }
	if [ "$lvl" = plain ]; then
		echo "    reproduce: $TIMED /tmp/t.out $cmd; cat /tmp/t.out"
	else
		pre=$(hs_pre "$bud")
		env=$(hs_env "$bud")
		echo "    reproduce: ${env:+$env }$HSD --socket /tmp/b.sock ${pre:+$pre }run $(hs_args "$lvl" "$bud") -- $TIMED /tmp/t.out $cmd"
		echo "      then: $HSC --dump - --format json --target PID | jq '.sessions[0].functions.calls_total'"
	fi
	eval "rc_$rkey=$cpu rn_$rkey=${calls:-0}"
}

# program KEY NAME ROWS PROG ARGS...: the rows of one program; ROWS picks
# the instrumented ones among 1 2 4 2off 4off (levels, "off": --budget off).
# The runs are interleaved, one of each row per round, RUNS rounds: this
# machine kind's speed changes by half over tens of seconds (other guests),
# and rows run one after the other would measure that, not the agent.
program() {
	pkey=$1 name=$2 rows=$3; shift 3
	[ -n "$budget_at" ] || rows="2 4"
	for round in $(seq "$RUNS"); do
		run_once "$pkey" plain - "$@"
		for r in $rows; do
			case $r in
			*off) run_once "${pkey}_$r" "${r%off}" off "$@" ;;
			*) run_once "${pkey}_$r" "$r" default "$@" ;;
			esac
		done
	done
	echo "$name:"
	row "$pkey" "  uninstrumented" plain - "$@"
	for r in $rows; do
		case $r in
		# Level 1 times little (main, the named functions) but patches
		# every site: the agent's fixed costs, which no budget removes.
		1) row "${pkey}_1" "  level 1 (fixed costs)" 1 default "$@" ;;
		*off) row "${pkey}_$r" "  level ${r%off}, --budget off" "${r%off}" off "$@" ;;
		*) row "${pkey}_$r" "  level $r$([ -n "$budget_at" ] && echo ', default budget')" "$r" default "$@" ;;
		esac
	done
}

echo
echo "real programs: $RUNS interleaved rounds; wall and CPU (user+sys of the target) in s, the fastest run's, ratios to"
echo "the fastest uninstrumented run; calls: the calls the report shows, timed, counted or estimated (report functions.calls_total); sites: patched"
echo "and active; cal.: the agent's calibrated cost of one hooked call (overhead_ps), ns; +ns/call:"
echo "(CPU - uninstrumented CPU) / calls; q: the row's quiet runs, whose figures it shows (0*: none, all shown)."
echo "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)."
if [ -z "$budget_at" ]; then
	echo "budget rows: not available in this build (hookscoped --help lists no --budget); level rows are today's"
	echo "  behaviour, which is what --budget off will keep."
fi
printf '%-34s %7s %7s %6s %6s %11s %6s %7s %7s %3s\n' program wall cpu wall-x cpu-x calls sites cal. +ns/call q
pyver=$(/usr/bin/python3 -c 'import platform; print(platform.python_version())')
all="1 2 4 2off 4off"
program py "python3 (Debian, $pyver)" "$all" /usr/bin/python3 "$PYSCRIPT" "$PYN"
progs="py"
if [ -n "$pyfull" ]; then
	program pyfull "python3 (full symtab, $("$pyfull" -c 'import platform; print(platform.python_version())'))" \
		"$all" "$pyfull" "$PYSCRIPT" "$PYN"
	progs="$progs pyfull"
else
	echo "python3 with its full symbol table: $pyfull_why"
fi
sh tests/bench/real/workload-sql.sh >"$tmp/w.sql" || die "cannot write $tmp/w.sql"
program sqlite "sqlite3 (Debian, $(/usr/bin/sqlite3 --version | cut -d' ' -f1)), after sh tests/bench/real/workload-sql.sh >/tmp/w.sql" \
	"$all" /usr/bin/sqlite3 :memory: ".read $tmp/w.sql"
progs="$progs sqlite"
# The same python script run four times as long: what watching costs a
# program that runs for seconds, where the patching at its start (the
# next program) no longer weighs.
program pylong "python3 (Debian, $pyver), $((PYN * 4)) iterations" "2 4" \
	/usr/bin/python3 "$PYSCRIPT" "$((PYN * 4))"
# A python that starts and exits: the agent's start-up (loading, calibration,
# planning and writing every site) with nearly nothing run.
program pystart "python3 (Debian, $pyver), start and exit (-c pass)" "1 2 4" /usr/bin/python3 -c pass

echo
off=""; [ -n "$budget_at" ] && off="off"
echo "ns added per timed call against the floor ($floor ns: $floor_from), goal <= 1.3x$( [ -n "$budget_at" ] &&
	echo ', --budget off rows' || echo ', level rows'):"
for p in $progs; do
	for l in 2 4; do
		eval "c=\$rc_${p}_$l$off n=\$rn_${p}_$l$off b=\$c_$p b1=\${rc_${p}_1:-}"
		awk -v p="$p" -v l="$l" -v c="$c" -v n="$n" -v b="$b" -v b1="$b1" -v f="$floor" 'BEGIN {
			if (n < 100000) { printf "  %-7s level %d: %d timed calls, too few for a per-call figure\n", p, l, n; exit }
			a = (c - b) / n
			printf "  %-7s level %d: %6.1f ns over %d calls = %5.2fx the floor: %s", p, l, a, n, a / f,
			    a <= 1.3 * f ? "met" : "NOT met"
			# Over level 1 (every site patched, nearly nothing timed): the
			# fixed costs out, what the timed calls themselves add.
			if (b1 != "")
				printf "; over level 1 %.1f ns = %.2fx", (c - b1) / n, (c - b1) / n / f
			printf "\n"
		}'
	done
done
if [ -n "$budget_at" ]; then
	echo "default budget against uninstrumented CPU, goal <= 1.10x:"
	for p in $progs pylong; do
		for l in 2 4; do
			eval "c=\$rc_${p}_$l b=\$c_$p"
			awk -v p="$p" -v l="$l" -v c="$c" -v b="$b" 'BEGIN {
				printf "  %-7s level %d: %5.2fx: %s\n", p, l, c / b, c <= 1.1 * b ? "met" : "NOT met" }'
		done
	done
else
	echo "default budget against uninstrumented CPU (goal <= 1.10x): not measured, no --budget in this build"
fi
if [ -n "$budget_at" ]; then
	echo "start-up: CPU ms a python3 that starts and exits gains under the agent:"
	for l in 1 2 4; do
		eval "c=\$rc_pystart_$l b=\$c_pystart"
		awk -v l="$l" -v c="$c" -v b="$b" 'BEGIN { printf "  level %d: +%.1f ms (%.1f ms alone)\n", l, (c - b) / 1e6, b / 1e6 }'
	done
fi
quiet_summary
