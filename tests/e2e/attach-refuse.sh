# attach-refuse.sh - attaches that must fail with a clear message and leave
# the process as it was:
#   1. a pid that does not exist (a child that has been reaped);
#   2. a process traced by another tracer (tests/e2e/data/tracer.c, like
#      strace -p): refused from the command line and through the daemon,
#      the message names the tracer; the target keeps running, with no
#      agent, its tracer and its code unchanged;
#   3. an agent library its user cannot read (target run as nobody), and a
#      stopped process (it must not be resumed);
#   4. detach from a process without an agent;
#   5. attach, detach and ps are refused from a client that is not on loopback
#      (the daemon on 0.0.0.0, the client on this host's other address).
. tests/e2e/lib.sh

cmd() { "$O/hookscope" --cmd "$*" "ws://127.0.0.1:$HS_PORT"; }
attach_cli() { "$O/hookscoped" --socket "$HS_SOCK" attach "$@"; }
expect_fail() {   # expect_fail PATTERN CMD...: CMD fails and says PATTERN
	local out
	out=$("${@:2}" 2>&1) && fail "'${*:2}' succeeded: $out"
	echo "$out" | grep -q -- "$1" || fail "'${*:2}' said '$out', expected '$1'"
	echo "  refused as expected: $out"
}
untouched() {   # untouched PID: running, no agent, no attach file left
	kill -0 "$1" 2>/dev/null || fail "pid $1 died"
	grep -q libhookscope "/proc/$1/maps" && fail "pid $1 has the agent mapped"
	[ ! -e "/tmp/hookscope-attach-$1.conf" ] || fail "attach file of $1 left behind"
}

cc -O2 -o "$HS_TMP/tracer" tests/e2e/data/tracer.c || fail "cannot build tracer.c"
start_daemon

# 1. no such process
sh -c 'exit 0' & gone=$!
wait "$gone"
expect_fail "cannot attach to $gone: no such process" attach_cli "$gone"
expect_fail "no such process" cmd attach "$gone"

# 2. traced by another process
spawn sleep 120
victim=$SPAWNED
spawn "$HS_TMP/tracer" "$victim"
tracer=$SPAWNED
wait_for 10 sh -c "grep -q '^TracerPid:[[:space:]]*$tracer\$' /proc/$victim/status"
before=$(md5sum <"/proc/$victim/maps")
expect_fail "already traced by pid $tracer (tracer)" attach_cli "$victim" --level 4
expect_fail "already traced by pid $tracer" cmd attach "$victim"
untouched "$victim"
grep -q "^TracerPid:[[:space:]]*$tracer\$" "/proc/$victim/status" || fail "the tracer lost its tracee"
[ "$(md5sum <"/proc/$victim/maps")" = "$before" ] || fail "the traced process's mappings changed"

# 3. the agent is not readable by the target's user
cp "$O/libhookscope.so" "$HS_TMP/private-agent.so" && chmod 600 "$HS_TMP/private-agent.so"
spawn setpriv --reuid=65534 --regid=65534 --clear-groups sleep 120
nobody=$SPAWNED
wait_for 10 sh -c "grep -q '^Uid:[[:space:]]*65534' /proc/$nobody/status && grep -q /sleep /proc/$nobody/maps"
expect_fail "not readable by uid 65534" "$O/hookscoped" --socket "$HS_SOCK" \
	--agent "$HS_TMP/private-agent.so" attach "$nobody"
untouched "$nobody"

# 3b. a stopped process (SIGSTOP) is refused, and stays stopped
kill -STOP "$nobody"
wait_for 10 grep -q '^State:[[:space:]]*T' "/proc/$nobody/status"
expect_fail "is stopped" attach_cli "$nobody"
grep -q '^State:[[:space:]]*T' "/proc/$nobody/status" || fail "the stopped process was resumed"
kill -CONT "$nobody"
untouched "$nobody"

# 4. detach without an agent
expect_fail "has no hookscope agent" "$O/hookscoped" detach "$victim"
expect_fail "no session for that pid" cmd detach "$victim"

# 5. not on loopback: only when this host has another IPv4 address
other=$(ip -4 -o addr show scope global 2>/dev/null | awk '{split($4, a, "/"); print a[1]; exit}')
if [ -n "$other" ]; then
	stop_daemon
	HS_PORT=$(free_port)
	# by hand: start_daemon waits for the loopback address in the log
	# beyond loopback needs an access token (access.sh tests it)
	export HOOKSCOPE_TOKEN=attach-refuse-token-0123
	spawn "$O/hookscoped" --port "$HS_PORT" --socket "$HS_SOCK" --address 0.0.0.0 \
		--token "$HOOKSCOPE_TOKEN" >>"$HS_TMP/daemon.log" 2>&1
	DAEMON_PID=$SPAWNED
	wait_for 10 port_listening "$HS_PORT"
	expect_fail "not on loopback" "$O/hookscope" --cmd "attach $nobody" "ws://$other:$HS_PORT"
	expect_fail "not on loopback" "$O/hookscope" --cmd "detach" "ws://$other:$HS_PORT"
	expect_fail "not on loopback" "$O/hookscope" --cmd "ps" "ws://$other:$HS_PORT"
	untouched "$nobody"
else
	echo "  (no non-loopback address: remote refusal not checked)"
fi
stop_daemon
echo "attach-refuse: ok"
