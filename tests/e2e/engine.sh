# engine.sh - the hook engine (on by default) on
# a program built with plain `cc -O2 -g`, no instrumentation flags
# (tests/e2e/data/plain.c, built here):
#   1. started at level 4 (patched in the agent's constructor): static
#      functions are timed with exact call counts;
#   2. level 2: only exported functions keep counting;
#   3. level 0: nothing counts; level 1: only the HOOKSCOPE_FUNCS glob;
#      level 3: the hidden global too, not the static ones;
#   4. level 4 again: the static functions count again, counts still exact;
#   steps 1-4 again on a -finstrument-functions build of the same program:
#      the engine leaves it to the timing hooks and their per-function switch;
#   5. a second run started at level 0, patched later by the reporter thread
#      while a worker spins in a hooked function (stop-the-world): level 3
#      adds the hidden global, level 4 the spinning static one.
. tests/e2e/lib.sh

cmd() { "$O/hookscope" --cmd "$*" "ws://127.0.0.1:$HS_PORT" >/dev/null; }
# calls_of NAME: the function's call count in a fresh frame (0 if absent).
calls_of() {
	once_json --top 500 | jq -e --arg n "$1" '[.funcs[] | select(.name == $n) | .calls][0] // 0'
}
# moving NAME: its count grows over 0.6 s.
moving() { a=$(calls_of "$1") || return 1; sleep 0.6; b=$(calls_of "$1") || return 1; [ "$b" -gt "$a" ]; }
# still NAME...: none of their counts changes over 0.6 s.
still() {
	local n a b
	a=""; b=""
	for n in "$@"; do a="$a $(calls_of "$n")" || return 1; done
	sleep 0.6
	for n in "$@"; do b="$b $(calls_of "$n")" || return 1; done
	[ "$a" = "$b" ]
}
# exact: the calls made once at start are counted exactly.
exact() {
	once_json --top 500 >"$HS_TMP/f.json" || return 1
	jq -e '[.funcs[] | {(.name): .calls}] | add
		| .st_once == 3 and .st_many == 1000 and .ex_many == 700 and .hid_many == 300' \
		"$HS_TMP/f.json" >/dev/null
}
dump() { jq -c '[.funcs[] | {(.name): .calls}] | add' "$HS_TMP/f.json" 2>/dev/null; }

# HS_CC, HS_CFLAGS: the target's compiler and extra flags (the arm64 suite,
# tests/arm64/).
CC=${HS_CC:-cc}
command -v "$CC" >/dev/null || fail "no C compiler ($CC) to build tests/e2e/data/plain.c"
$CC -O2 -g -pthread ${HS_CFLAGS:-} -o "$HS_TMP/plain" tests/e2e/data/plain.c ||
	fail "cannot build tests/e2e/data/plain.c with $CC -O2 -g ${HS_CFLAGS:-}"
if nm "$HS_TMP/plain" | grep -q __cyg_profile; then fail "plain was built instrumented"; fi

# levels BINARY: steps 1-4 on one build of plain.c.  The levels are read
# from exact counts and from which counts move or stop, so every selected
# call must stay timed: the overhead budget (which would count, estimate or
# stop some) is off.
levels() {
	export HOOKSCOPE_FUNCS='st_t*' HOOKSCOPE_LEVEL=4
	start_daemon --budget off run -- "$1" 60

	# 1. level 4: static functions with exact counts, the ticker and spinner move.
	wait_for 20 jq_once '.funcs[] | select(.name == "st_tick" and .calls > 3)' --top 500
	wait_until 10 exact || fail "$1: level 4: counts are not exact: $(dump)"
	wait_for 10 moving st_spin
	wait_for 10 moving ex_tick

	# 2. level 2: exported ones only (and the glob's st_tick, named at every level).
	cmd level 2 || fail "level 2 was refused"
	wait_for 10 still st_spin
	wait_for 10 moving ex_tick

	# 3. level 0: nothing.
	cmd level 0 || fail "level 0 was refused"
	wait_for 10 still st_tick st_spin ex_tick

	# 3b. level 1: main and the HOOKSCOPE_FUNCS globs only (st_t* = st_tick).
	cmd level 1 || fail "level 1 was refused"
	wait_for 10 moving st_tick
	wait_for 10 still ex_tick st_spin

	# 3c. level 3: + the hidden global, not the static spinner.
	cmd level 3 || fail "level 3 was refused"
	wait_for 10 moving ex_tick
	wait_for 10 still st_spin

	# 4. level 4: the static ones again; the start counts stay exact.
	cmd level 4 || fail "level 4 was refused"
	wait_for 10 moving st_tick
	wait_for 10 moving st_spin
	exact || fail "$1: after the level changes: counts are not exact: $(dump)"
	stop_daemon
}

levels "$HS_TMP/plain"
# The same levels through the -finstrument-functions path's per-function
# switch (the engine leaves an instrumented module to its hooks).
$CC -O2 -g -pthread ${HS_CFLAGS:-} -finstrument-functions -o "$HS_TMP/plain-fi" tests/e2e/data/plain.c ||
	fail "cannot build tests/e2e/data/plain.c with -finstrument-functions"
levels "$HS_TMP/plain-fi"

# 5. patched late, with a thread spinning in a hooked function.
unset HOOKSCOPE_FUNCS
export HOOKSCOPE_LEVEL=0
start_daemon --budget off run -- "$HS_TMP/plain" 60
wait_for 20 jq_once '.targets[0].level == 0'
sleep 0.5
cmd level 3 || fail "level 3 was refused"
wait_for 10 moving ex_tick
wait_for 10 still st_tick st_spin
cmd level 4 || fail "level 4 was refused"
wait_for 10 moving st_spin
wait_for 10 moving st_tick
kill -0 "$DAEMON_PID" || fail "hookscoped died"
echo "ok: plain -O2 target hooked without rebuild, and the same with -finstrument-functions:" \
	"exact static counts at 4, exported only at 2, none at 0, globals at 3, back at 4;" \
	"late patch with a spinning thread"
