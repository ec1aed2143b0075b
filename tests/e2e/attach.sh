# attach.sh - attach to a running process and detach cleanly:
#   1. tests/e2e/data/attachee.c (plain cc -O2, 4 threads, no hookscope)
#      runs once unobserved: its output is the reference;
#   2. a second run is attached at level 4 (hookscoped attach): its static,
#      global and recursive functions show counts in the next frames; its
#      4 threads, started before the attach, are listed as "pre-attach";
#   3. level 2, then level 3: the static ones stop, the global ones go on;
#   4. :detach (the daemon's command): the agent leaves /proc/PID/maps, the
#      session says "detached", and the code bytes of the patched functions
#      (read through /proc/PID/mem) are what they were before the attach;
#   5. the program runs on to completion and prints what the unobserved run
#      printed;
#   6. a third run is attached with no daemon on the agent's socket: at
#      --grace 1 the agent detaches itself; then it is attached again through
#      the daemon (:attach), set to level 1 and detached from the command
#      line (hookscoped detach); code and output are checked again; last,
#      a daemon started with --detach-on-exit detaches it as it stops.
. tests/e2e/lib.sh

cmd() { "$O/hookscope" --cmd "$*" "ws://127.0.0.1:$HS_PORT"; }
# calls_of NAME: the function's call count in a fresh frame (0 if absent).
calls_of() {
	once_json --top 500 | jq -e --arg n "$1" '[.funcs[] | select(.name == $n) | .calls][0] // 0'
}
moving() { a=$(calls_of "$1") || return 1; sleep 0.6; b=$(calls_of "$1") || return 1; [ "$b" -gt "$a" ]; }
still() { a=$(calls_of "$1") || return 1; sleep 0.6; b=$(calls_of "$1") || return 1; [ "$a" = "$b" ]; }
has_agent() { grep -q libhookscope "/proc/$1/maps"; }
no_agent() { [ -e "/proc/$1" ] && ! grep -q libhookscope "/proc/$1/maps"; }
state_is() { jq_once "[.targets[] | select(.pid == $1 and .state == \"$2\")] | length == 1"; }
# code PID: the first 16 bytes of each function we time, as hex.
code() {
	local base f off
	base=$(awk -v exe="$HS_TMP/attachee" '$6 == exe && $3 == "00000000" {split($1, a, "-"); print a[1]; exit}' "/proc/$1/maps")
	for f in at_mix at_fib at_leaf at_round at_worker main; do
		off=$(nm "$HS_TMP/attachee" | awk -v f="$f" '$3 == f {print $1}')
		printf '%s ' "$f"
		dd if="/proc/$1/mem" bs=16 count=1 skip=$(( 0x$base + 0x$off )) iflag=skip_bytes 2>/dev/null |
			od -An -tx1 | tr -d ' \n'
		echo
	done
}
target() {   # target STOPFILE OUT: start attachee, $TPID
	spawn_attachable "$HS_TMP/attachee" "$1" 4 >"$2"
	TPID=$SPAWNED
	wait_for 10 sh -c "grep -q attachee /proc/$TPID/maps && [ \$(ls /proc/$TPID/task | wc -l) -eq 5 ]"
}
finish() {   # finish STOPFILE: stop the target, wait for it (bounded)
	touch "$1"
	wait_for 20 sh -c "! kill -0 $TPID 2>/dev/null"
	wait "$TPID" || fail "attachee exited with status $?"
}

cc -O2 -g -pthread -o "$HS_TMP/attachee" tests/e2e/data/attachee.c ||
	fail "cannot build tests/e2e/data/attachee.c with cc -O2 -g"

# 1. unobserved reference run
target "$HS_TMP/stop0" "$HS_TMP/ref.txt"
sleep 0.3
finish "$HS_TMP/stop0"
grep -q "mismatches=0" "$HS_TMP/ref.txt" || fail "reference run: $(cat "$HS_TMP/ref.txt")"

# 2. attach at level 4 from the command line.  The levels' effect is read
# from which counts move and which stop, so every selected call must stay
# timed: the overhead budget (which would stop or estimate some) is off.
start_daemon --budget off
target "$HS_TMP/stop1" "$HS_TMP/out.txt"
code "$TPID" >"$HS_TMP/code.before"
workers=$(ls "/proc/$TPID/task" | grep -vx "$TPID" | sort -n | tr '\n' ' ' | sed 's/ $//')
"$O/hookscoped" --socket "$HS_SOCK" attach "$TPID" --level 4 >"$HS_TMP/attach.txt" 2>&1 ||
	fail "attach failed: $(cat "$HS_TMP/attach.txt")"
grep -q "attached to $TPID" "$HS_TMP/attach.txt" || fail "attach said: $(cat "$HS_TMP/attach.txt")"
has_agent "$TPID" || fail "no agent in /proc/$TPID/maps after attach"
wait_for 20 jq_once "[.targets[] | select(.pid == $TPID and .state == \"live\" and .level == 4)] | length == 1"
for f in at_mix at_fib at_leaf at_round; do
	wait_for 20 moving "$f"
done
# the 4 worker threads started before the attach: listed from /proc, marked
pre_attach() {
	[ "$(once_json --target "$TPID" | jq -r '[.threading.threads[] | select(.state == "pre-attach") | .tid] | sort | join(" ")')" = "$workers" ]
}
wait_for 10 pre_attach
code "$TPID" >"$HS_TMP/code.patched"
cmp -s "$HS_TMP/code.before" "$HS_TMP/code.patched" && fail "level 4: no function was patched"

# 3. level 2 (exported only), then 3 (every global one)
cmd level 2 >/dev/null || fail "level 2 refused"
wait_for 10 still at_mix
wait_for 10 moving at_round
cmd level 3 >/dev/null || fail "level 3 refused"
wait_for 10 still at_leaf
wait_for 10 moving at_fib

# 4. detach through the daemon (the TUI's :detach)
cmd detach "$TPID" >"$HS_TMP/detach.txt" || fail "detach refused: $(cat "$HS_TMP/detach.txt")"
wait_for 10 no_agent "$TPID"
wait_for 10 state_is "$TPID" detached
code "$TPID" >"$HS_TMP/code.after"
cmp "$HS_TMP/code.before" "$HS_TMP/code.after" >/dev/null ||
	fail "code bytes differ after detach: $(diff "$HS_TMP/code.before" "$HS_TMP/code.after")"
for lib in libZydis libelf libmsgpackc; do
	grep -q "$lib" "/proc/$TPID/maps" && fail "$lib is still mapped after detach"
done

# 5. the program goes on and ends as if never observed
finish "$HS_TMP/stop1"
cmp "$HS_TMP/ref.txt" "$HS_TMP/out.txt" >/dev/null ||
	fail "output differs: reference '$(cat "$HS_TMP/ref.txt")', attached '$(cat "$HS_TMP/out.txt")'"

# 6. no daemon on its socket: the agent detaches itself after the grace period
target "$HS_TMP/stop2" "$HS_TMP/out2.txt"
"$O/hookscoped" --socket "$HS_TMP/nobody.sock" attach "$TPID" --level 4 --grace 1 >/dev/null ||
	fail "attach (no daemon) failed"
has_agent "$TPID" || fail "no agent after the second attach"
wait_for 15 no_agent "$TPID"
# ... and once more: attach through the daemon, detach from the command line
cmd attach "$TPID" 4 >"$HS_TMP/attach2.txt" || fail ":attach failed: $(cat "$HS_TMP/attach2.txt")"
wait_for 20 moving at_fib
cmd level 1 >/dev/null || fail "level 1 refused"
wait_for 10 still at_fib
"$O/hookscoped" detach "$TPID" >"$HS_TMP/detach2.txt" 2>&1 ||
	fail "hookscoped detach failed: $(cat "$HS_TMP/detach2.txt")"
no_agent "$TPID" || fail "agent still mapped after hookscoped detach"
code "$TPID" >"$HS_TMP/code.after2"
cmp "$HS_TMP/code.before" "$HS_TMP/code.after2" >/dev/null || fail "code bytes differ after the second detach"
# ... and a daemon with --detach-on-exit takes its attached agents out as it stops
stop_daemon
start_daemon --budget off --detach-on-exit
cmd attach "$TPID" 3 >/dev/null || fail ":attach (--detach-on-exit daemon) failed"
wait_for 20 moving at_fib
stop_daemon
no_agent "$TPID" || fail "agent still mapped after the --detach-on-exit daemon stopped"
finish "$HS_TMP/stop2"
cmp "$HS_TMP/ref.txt" "$HS_TMP/out2.txt" >/dev/null || fail "output of the third run differs"
echo "attach: ok"
