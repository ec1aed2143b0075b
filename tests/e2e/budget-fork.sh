# budget-fork.sh - the overhead budget holds in a fork child: Debian's python3
# at level 4 runs a call-heavy loop, forks, and the child runs the loop again
# for longer.  The child's agent measures its own thread's CPU (its thread id
# is not the parent's) and demotes functions within its budget: its session
# shows functions no longer timed, and a cost within 5%.
. tests/e2e/lib.sh

PY=/usr/bin/python3
[ -x "$PY" ] || fail "$PY is missing (package python3)"
cat >"$HS_TMP/fork.py" <<'EOF'
import os, signal, sys
def loop(n):
    d = {}
    for i in range(n):
        k = str(i % 5000)
        d[k] = d.get(k, 0) + i
        s = "%d:%s" % (i, k)
loop(300000)
pid = os.fork()
if pid == 0:
    signal.alarm(60)    # never outlives the test, whatever it finds
    with open(sys.argv[1], "w") as f:
        f.write("%d\n" % os.getpid())
    loop(int(sys.argv[2]))
    os._exit(0)
os.waitpid(pid, 0)
EOF
export HOOKSCOPE_LEVEL=4
start_daemon run -- "$PY" "$HS_TMP/fork.py" "$HS_TMP/child.pid" 12000000
wait_for 20 test -s "$HS_TMP/child.pid"
child=$(cat "$HS_TMP/child.pid")
child_json() { once_json --target "$child" --top 300; }
wait_until 20 jq_once "[.targets[] | select(.pid == $child)][0].state == \"live\"" ||
	fail "the child $child has no live session"
wait_until 20 jq_once '[.funcs[] | select(.mode != "timed")] | length > 0' --target "$child" --top 300 ||
	fail "the fork child's budget demoted nothing: $(child_json | jq -c '{cost_ppm, budget_ppm, modes: [.funcs[] | .mode] | group_by(.) | map({(.[0]): length}) | add}')"
wait_until 20 jq_once '.cost_ppm > 0 and .cost_ppm <= 50000' --target "$child" ||
	fail "the fork child's cost is not within its budget: $(child_json | jq -c '{cost_ppm, budget_ppm}')"
echo "ok: fork child $child: $(child_json | jq -r '"\([.funcs[] | select(.mode != "timed")] | length) functions demoted, cost \(.cost_ppm) ppm of a \(.budget_ppm) ppm budget"')"
kill "$child" 2>/dev/null
