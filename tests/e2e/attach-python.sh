# attach-python.sh - attach to a real Debian program started without
# hookscope: /usr/bin/python3 running a loop that checks its own
# arithmetic.  Attached at level 2 (the exported functions of its own
# executable, about 1400 sites), its interpreter functions show counts;
# level 1, then 2 again; detached through the daemon, it has no agent in
# /proc/PID/maps and finishes with the output of an unobserved run.
. tests/e2e/lib.sh

PY=/usr/bin/python3
[ -x "$PY" ] || fail "no $PY (Debian package python3)"
cmd() { "$O/hookscope" --cmd "$*" "ws://127.0.0.1:$HS_PORT"; }
# py_funcs N: at least N functions of the python executable have calls.
py_funcs() {
	once_json --top 1000 | jq -e --argjson n "$1" \
		'[.funcs[] | select((.module | startswith("python3")) and .calls > 0)] | length >= $n'
}
calls_of() {
	once_json --top 1000 | jq -e --arg n "$1" '[.funcs[] | select(.name == $n) | .calls][0] // 0'
}
moving() { a=$(calls_of "$1") || return 1; sleep 0.6; b=$(calls_of "$1") || return 1; [ "$b" -gt "$a" ]; }
no_agent() { [ -e "/proc/$1" ] && ! grep -q libhookscope "/proc/$1/maps"; }
cat >"$HS_TMP/loop.py" <<'PYEOF'
import os, sys, time
def work(n):
    s = 0
    for i in range(n):
        s = (s * 31 + i) % 1000003
    return s
ref = work(20000)
bad = 0
while not os.path.exists(sys.argv[1]):
    if work(20000) != ref:
        bad += 1
    time.sleep(0.005)
print("ref=%d bad=%d" % (ref, bad))
PYEOF
run_py() {   # run_py STOPFILE OUT: start the loop, $PYPID
	spawn_attachable "$PY" "$HS_TMP/loop.py" "$1" >"$2"
	PYPID=$SPAWNED
	wait_for 10 grep -q libpython\\\|python3 "/proc/$PYPID/maps"
	sleep 0.3
}
finish() {
	touch "$1"
	wait_for 20 sh -c "! kill -0 $PYPID 2>/dev/null"
	wait "$PYPID" || fail "python exited with status $?"
}

run_py "$HS_TMP/stop0" "$HS_TMP/ref.txt"
finish "$HS_TMP/stop0"
start_daemon
run_py "$HS_TMP/stop1" "$HS_TMP/out.txt"
cmd attach "$PYPID" 2 >"$HS_TMP/attach.txt" || fail "attach failed: $(cat "$HS_TMP/attach.txt")"
wait_for 30 py_funcs 20
wait_for 10 moving PyObject_RichCompare
cmd level 1 >/dev/null || fail "level 1 refused"
wait_for 10 jq_once ".targets[] | select(.pid == $PYPID) | .level == 1"
cmd level 2 >/dev/null || fail "level 2 refused"
wait_for 10 moving PyObject_RichCompare
cmd detach "$PYPID" >/dev/null || fail "detach refused"
wait_for 10 no_agent "$PYPID"
finish "$HS_TMP/stop1"
cmp "$HS_TMP/ref.txt" "$HS_TMP/out.txt" >/dev/null ||
	fail "output differs: '$(cat "$HS_TMP/ref.txt")' vs '$(cat "$HS_TMP/out.txt")'"
stop_daemon
echo "attach-python: ok"
