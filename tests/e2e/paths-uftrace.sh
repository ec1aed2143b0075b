# paths-uftrace.sh - the timing collector's call paths against uftrace, on
# tests/e2e/data/callgraph.c built with -finstrument-functions (a known tree:
# a function with three callers, a recursion three deep): three runs under
# `uftrace record` + `uftrace graph`, three under hookscoped at level 4 with
# the budget off (every call timed), each to its end.  Every caller->callee
# edge between the program's functions must have the same calls as in
# uftrace's graph and an inclusive time within 10% of it.  Both tools
# measure wall-clock time, so every run is real-time (chrt -f: the
# machine's other programs do not preempt it) and each edge's time is the
# least of the three runs of each tool.  tests/e2e/data/paths-check.py
# compares them.
. tests/e2e/lib.sh

command -v uftrace >/dev/null || fail "uftrace is not installed (apt-get install uftrace; mk/deps.sh lists it)"
chrt -f 10 true || fail "cannot run a real-time process (chrt -f 10): the test needs root or CAP_SYS_NICE"
cc -O2 -g -finstrument-functions -o "$HS_TMP/cg" tests/e2e/data/callgraph.c ||
	fail "cannot build tests/e2e/data/callgraph.c with -finstrument-functions"
rounds=1000
args=
# The tools' runs alternate: three runs of one tool then three of the
# other read any drift of the machine's speed between them as a
# difference (every edge 6-10% apart once, on a VM).
for i in 1 2 3; do
	chrt -f 10 uftrace record -d "$HS_TMP/ut$i" "$HS_TMP/cg" $rounds >/dev/null 2>&1 ||
		fail "uftrace record fails on callgraph"
	uftrace graph -d "$HS_TMP/ut$i" >"$HS_TMP/graph$i.txt" || fail "uftrace graph fails"
	args="$args u:$HS_TMP/graph$i.txt"
	: >"$HS_TMP/daemon.log"
	start_daemon --budget off run --level 4 -- chrt -f 10 "$HS_TMP/cg" $rounds
	wait_for 60 grep -q "target pid [0-9]* ended" "$HS_TMP/daemon.log"
	"$O/hookscope" --dump "$HS_TMP/r$i.json" "ws://127.0.0.1:$HS_PORT" >/dev/null ||
		fail "hookscope --dump of run $i failed"
	jq -e '.sessions[0].functions.paths_dropped == 0' "$HS_TMP/r$i.json" >/dev/null ||
		fail "run $i dropped call paths: $(jq -c '.sessions[0].functions.paths_dropped' "$HS_TMP/r$i.json")"
	stop_daemon
	args="$args h:$HS_TMP/r$i.json"
done
${PYTHON:-python3} tests/e2e/data/paths-check.py main,round_,parse,render,draw,checksum,spin $args ||
	fail "call paths differ from uftrace's"
echo "ok: every caller->callee edge of callgraph has uftrace's calls and inclusive time within 10%"
