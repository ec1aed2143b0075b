# lib.sh - shared helpers of the end-to-end tests (sourced, never run).
#
# Every test starts the real programs it needs on loopback, polls for the
# state it expects with a bound, and stops everything it started at exit.
# Provided: $O, $HS_PORT, $HS_TMP, start_daemon, stop_daemon, wait_for, fail,
# once_json, free_port, spawn (start a background process that is killed at exit),
# program_strace (a program's strace -ff files without the agent's threads),
# tm, screen, wait_screen (a TUI in tmux).
# spawn_attachable (the same, for a process attached later).

set -u
O=${O:-build}
case $O in /*) ;; *) O=$(pwd)/$O ;; esac
HS_TMP=$(mktemp -d /tmp/hookscope-test.XXXXXX)
# The demo's power scenario writes its wakelocks into a scratch sysfs, never the
# machine's /sys (the agent strips the prefix: doc/power.md).
export HOOKSCOPE_POWER_SYSFS=${HOOKSCOPE_POWER_SYSFS:-$HS_TMP/sys}
HS_SOCK=$HS_TMP/agent.sock
HS_PIDS=""
DAEMON_PID=""
export HOOKSCOPE_STATE_DIR=$HS_TMP/state   # keep the TUI's history out of $HOME

# Print a message and fail the test.
fail() {
	echo "FAIL: $*" >&2
	# A test's own account of the state it failed in (set HS_ON_FAIL to a
	# command), once: the command may fail too.
	if [ -n "${HS_ON_FAIL:-}" ]; then
		local on=$HS_ON_FAIL
		HS_ON_FAIL=
		echo "--- $on ---" >&2
		$on >&2 2>&1
	fi
	if [ -f "$HS_TMP/daemon.log" ]; then
		echo "--- daemon log (last 20 lines) ---" >&2
		tail -n 20 "$HS_TMP/daemon.log" >&2
	fi
	exit 1
}

# Is TCP port $1 listened on?
port_listening() {
	ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
}

# Is TCP port $1 used by any socket (a client's ephemeral port, TIME_WAIT)?
port_used() {
	ss -Htan "sport = :$1" 2>/dev/null | grep -q .
}

# A TCP port no socket uses (the range overlaps the ephemeral ports).
free_port() {
	local p i
	for i in $(seq 1 50); do
		p=$(( 20000 + ( $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 30000 ) ))
		port_used "$p" || { echo "$p"; return 0; }
	done
	fail "no free TCP port found"
}
HS_PORT=$(free_port)

# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds; fail after SECONDS
# (bash: every test runs under it).
wait_for() {
	wait_until "$@" || fail "timed out after ${1}s waiting for: ${*:2}"
}

# wait_until SECONDS CMD...: the same, but a timeout returns 1, for the
# caller's own message: wait_until 10 cond || fail "what it found".
wait_until() {
	local limit=$1; shift
	local end=$(( $(date +%s%N) + limit * 1000000000 ))
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s%N)" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# spawn CMD...: start CMD in the background, remembered for cleanup; sets $SPAWNED.
spawn() {
	"$@" &
	SPAWNED=$!
	HS_PIDS="$HS_PIDS $SPAWNED"
}

# start_daemon [OPTIONS] [run -- PROG ARGS]: a real hookscoped on 127.0.0.1:$HS_PORT.
# The port is free when chosen, but another program (a test suite running in
# parallel) may bind it first: then hookscoped exits with "address in use"
# and a new port is tried.  Ours is listening when its log says so.
start_daemon() {
	local try n
	mkdir -p "$HS_TMP/reports"
	for try in 1 2 3; do
		n=$(grep -c "listening on ws://127.0.0.1:$HS_PORT," "$HS_TMP/daemon.log" 2>/dev/null)
		spawn "$O/hookscoped" --port "$HS_PORT" --socket "$HS_SOCK" \
			--report-dir "$HS_TMP/reports" "$@" >>"$HS_TMP/daemon.log" 2>&1
		DAEMON_PID=$SPAWNED
		wait_for 10 sh -c "! kill -0 $DAEMON_PID 2>/dev/null ||
			[ \$(grep -c 'listening on ws://127.0.0.1:$HS_PORT,' '$HS_TMP/daemon.log') -gt ${n:-0} ]"
		kill -0 "$DAEMON_PID" 2>/dev/null && return 0
		tail -1 "$HS_TMP/daemon.log" | grep -q "address in use" || break
		HS_PORT=$(free_port)
	done
	fail "hookscoped exited at start"
}

# stop_daemon: SIGTERM, then wait (bounded) for it to go.
stop_daemon() {
	[ -n "$DAEMON_PID" ] || return 0
	kill -TERM "$DAEMON_PID" 2>/dev/null
	wait_for 10 sh -c "! kill -0 $DAEMON_PID 2>/dev/null"
	wait "$DAEMON_PID" 2>/dev/null
	DAEMON_PID=""
}

# once_json [TUI OPTIONS]: one snapshot frame as JSON on stdout.
once_json() {
	"$O/hookscope" --once --json "$@" "ws://127.0.0.1:$HS_PORT"
}

# cc_prog SRC: build the test program SRC (a .c file) with plain cc -O2 -g
# (what the hook engine patches) as $HS_TMP/NAME, NAME its base name.
cc_prog() {
	local name
	name=$(basename "$1" .c)
	command -v cc >/dev/null || fail "no C compiler (cc) to build $1"
	cc -O2 -g -o "$HS_TMP/$name" "$1" || fail "cannot build $1 with cc -O2 -g"
}

# jq_once FILTER [TUI OPTIONS]: one snapshot, filtered through jq -e.
jq_once() {
	local filter=$1; shift
	once_json "$@" | jq -e "$filter"
}

# program_strace PREFIX: the per-thread files PREFIX.* of `strace -ff` (traced
# with close_range), but the agent's threads': each one starts with
# close_range(..., CLOSE_RANGE_UNSHARE) and numbers its descriptors in a
# table of its own, so its calls on fd N are not the program's.
program_strace() {
	local f
	for f in "$1".*; do
		grep -q CLOSE_RANGE_UNSHARE "$f" || cat "$f"
	done
}

# perf_top N MINPCT PROG ARGS...: run PROG under `perf record -e cpu-clock`
# (a software event: this machine kind has no hardware counters) and print
# the N functions with the most self samples, highest first, among those
# with at least MINPCT% of them; the report stays in $HS_TMP/report.txt.
perf_top() {
	local n=$1 min=$2 top; shift 2
	command -v perf >/dev/null 2>&1 ||
		fail "perf is not installed (apt-get install linux-perf; mk/deps.sh lists it)"
	perf record -q -e cpu-clock -F 999 -o "$HS_TMP/perf.data" -- "$@" \
		>"$HS_TMP/perf.out" 2>"$HS_TMP/perf.err" ||
		fail "perf record failed: $(cat "$HS_TMP/perf.err")"
	perf report -i "$HS_TMP/perf.data" --stdio --sort symbol 2>"$HS_TMP/report.err" >"$HS_TMP/report.txt" ||
		fail "perf report failed: $(cat "$HS_TMP/report.err")"
	top=$(awk -v min="$min" '$2 == "[.]" && $1 + 0 >= min { print $3 }' "$HS_TMP/report.txt" | head -n "$n")
	[ "$(echo $top | wc -w)" -eq "$n" ] ||
		fail "perf ranked fewer than $n functions with $min% of the samples: $(grep -v '^#' "$HS_TMP/report.txt" | head -n $((n + 2)))"
	echo $top
}

# tmux on a private server: tm ARGS...; screen WINDOW prints its text;
# wait_screen SECONDS WINDOW CMD... polls until CMD (given the screen on
# stdin) succeeds, else shows the screen and fails.  Set TM_SOCK first.
tm() { tmux -L "$TM_SOCK" -f /dev/null "$@"; }
screen() { tm capture-pane -p -t "$1"; }
wait_screen() {
	local limit=$1 win=$2 end
	shift 2
	end=$(( $(date +%s%N) + limit * 1000000000 ))
	while ! screen "$win" | "$@" >/dev/null 2>&1; do
		if [ "$(date +%s%N)" -ge "$end" ]; then
			echo "--- screen of $win ---" >&2
			screen "$win" >&2
			fail "timed out after ${limit}s waiting on the $win screen for: $*"
		fi
		sleep 0.1
	done
}

hs_cleanup() {
	local p
	# Children first: the targets `hookscoped run` started.
	for p in $HS_PIDS; do pkill -TERM -P "$p" 2>/dev/null; kill -TERM "$p" 2>/dev/null; done
	for p in $HS_PIDS; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null
	done
	rm -rf "$HS_TMP"
}
trap hs_cleanup EXIT
trap 'exit 130' INT TERM

command -v jq >/dev/null || fail "jq is not installed (run 'make deps')"
command -v ss >/dev/null || fail "ss is not installed (iproute2; run 'make deps')"
[ -x "$O/hookscoped" ] && [ -x "$O/hookscope" ] && [ -f "$O/libhookscope.so" ] ||
	fail "hookscope is not built in $O (run 'make')"

# LD_PRELOAD value for starting a target by hand: a sanitized agent needs its
# runtime loaded first (hookscoped run does the same).
HS_PRELOAD=$(ldd "$O/libhookscope.so" 2>/dev/null | awk '/lib(asan|tsan)\.so/ {printf "%s:", $3}')$O/libhookscope.so

# spawn_attachable CMD...: spawn a program started without hookscope, to be
# attached later.  A sanitized agent loads only into a process that has its
# runtime, and the agent's heap outlives a detach (doc/architecture.md): no
# leak check in such a process.
HS_SAN_RT=$(ldd "$O/libhookscope.so" 2>/dev/null | awk '/lib(asan|tsan)\.so/ {print $3}')
# A sanitizer runtime is preloaded before the agent: its pthread_create
# interceptor calls the agent's with the runtime's own start function, so
# start routine names (and what depends on them) cannot be checked there.
HS_SAN_THREADS=""
[ -n "$HS_SAN_RT" ] && HS_SAN_THREADS=1
# tinyfuncs_start ITER: tests/apps/tinyfuncs (known exact counts) at level 4,
# the agent's log on, run by a new daemon.  TF_ROWS selects its functions in
# --json output; TF_EXACT defines tf_exact($iter), a row's exact count, for jq.
TF_ROWS='[.funcs[] | select(.name | test("^(work_|dispatch$|tiny_)"))]'
TF_EXACT='def tf_exact($iter): if (.name | startswith("tiny_")) then 250 * $iter else $iter end;'
tinyfuncs_start() {
	cc_prog tests/apps/tinyfuncs/tinyfuncs.c
	export HOOKSCOPE_LEVEL=4 HOOKSCOPE_DEBUG=1
	start_daemon run -- "$HS_TMP/tinyfuncs" "$1"
}

# budget_for PCT [SCALE]: an overhead budget for a test whose premise is the
# hooks' cost against the budget (which functions the rule samples, which it
# turns off): PCT, or SCALE (default 2.2) times it under a sanitizer runtime
# (at most 100), whose hooks cost that much more than a native build's (the
# agent's calibration: 157 against 69 ticks a call).
budget_for() {
	if [ -n "$HS_SAN_RT" ]; then
		awk -v p="$1" -v k="${2:-2.2}" 'BEGIN { p *= k; print (p > 100 ? 100 : p) }'
	else
		echo "$1"
	fi
}
# start_xvfb: a private X server on a display it picks itself (-displayfd);
# exports DISPLAY.
start_xvfb() {
	exec 5>"$HS_TMP/display"
	spawn Xvfb -displayfd 5 -nolisten tcp -noreset -screen 0 1920x1200x24 2>"$HS_TMP/xvfb.log"
	exec 5>&-
	wait_for 20 test -s "$HS_TMP/display"
	DISPLAY=:$(cat "$HS_TMP/display")
	export DISPLAY
}
spawn_attachable() {
	if [ -n "$HS_SAN_RT" ]; then
		spawn env LD_PRELOAD="$HS_SAN_RT" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" "$@"
	else
		spawn "$@"
	fi
}

# nop_toggles LIMIT: with tests/e2e/data/nop.c running under a daemon at level
# 4 (HOOKSCOPE_DEBUG on, its log in $HS_TMP/daemon.log, its control folder
# $HS_TMP/run): the level toggled 0 <-> 4 1000 times over one websocket
# connection while its 4 threads call, every command answered ok and applied
# (the agent applies them in order on its reporter thread); then the threads
# parked, a reset, one final round counted exactly, its functions in the mode
# HOOKSCOPE_MODE asked for (timed if unset).  Each wait is bounded by
# LIMIT seconds.  Sets TOGGLE_SECS (the toggling's duration).
nop_toggles() {
	local limit=$1 log=$HS_TMP/daemon.log i ok t0
	set --
	for i in $(seq 500); do set -- "$@" "cmd level 0" "cmd level 4"; done
	t0=$(date +%s)
	"$O/tools/hs-wsclient" -p "$HS_PORT" -t "$limit" --replies --no-frames "$@" >"$HS_TMP/toggle.out" ||
		fail "the 1000 level commands did not all get replies (rc $?): $(tail -3 "$HS_TMP/toggle.out")"
	ok=$(grep -c '"ok":true' "$HS_TMP/toggle.out")
	[ "$ok" -eq 1000 ] ||
		fail "$ok of 1000 level commands succeeded: $(grep -v '"ok":true' "$HS_TMP/toggle.out" | head -3)"
	wait_for "$limit" sh -c "[ \$(grep -c 'hook: level [0-4]:' '$log') -ge 1001 ]"
	TOGGLE_SECS=$(( $(date +%s) - t0 ))
	kill -0 "$DAEMON_PID" || fail "hookscoped died"
	jq_once '.targets[0].state == "live" and .targets[0].level == 4' >/dev/null ||
		fail "the target is not live at level 4 after the toggles: $(once_json | jq -c .targets)"
	# park the threads, reset, wait until the agent has seen the reset (it
	# comes after every level record), then one final round
	touch "$HS_TMP/run/pause"
	wait_for "$limit" test -e "$HS_TMP/run/parked"
	"$O/hookscope" --cmd reset "ws://127.0.0.1:$HS_PORT" >/dev/null || fail "reset was refused"
	wait_for "$limit" grep -q ']: reset$' "$log"
	grep 'hook: level [0-4]:' "$log" | tail -1 | grep -q 'level 4:' || fail "the last level applied is not 4"
	touch "$HS_TMP/run/go"
	wait_for "$limit" test -e "$HS_TMP/run/done"
	nop_exact() {
		once_json --top 100 >"$HS_TMP/f.json" || return 1
		jq -e '[.funcs[] | {(.name): .calls}] | add |
			.st_a == 4000 and .st_b == 1200 and .ex_c == 308' "$HS_TMP/f.json" >/dev/null &&
		# and watched the way asked (HOOKSCOPE_MODE: every site's mode)
		jq -e --arg mode "${HOOKSCOPE_MODE:-timed}" '[.funcs[] |
			select(.name == "st_a" or .name == "st_b" or .name == "ex_c") | .mode == $mode] |
			length == 3 and all' "$HS_TMP/f.json" >/dev/null
	}
	for i in $(seq 50); do nop_exact && break; sleep 0.2; done
	nop_exact ||
		fail "final round: counts are not exact or not ${HOOKSCOPE_MODE:-timed}: $(jq -c '[.funcs[] | {(.name): [.calls, .mode]}] | add' "$HS_TMP/f.json")"
	kill -0 "$DAEMON_PID" || fail "hookscoped died"
}
