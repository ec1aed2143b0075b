# tui-threads.sh - the threads panel of the interactive hookscope in tmux,
# with the demo's threads scenario (--threads: a dispatcher thread making
# short-lived task threads and a hand-written pool of two workers): H shows
# the tree (main -> demo-dispatch -> the inferred pool of dt_pool_worker and
# the task threads) with start routines by name, states, CPU% and ages;
# Enter on a worker shows its creation stack by name; H goes back; :reset
# restarts the counts; a demo exiting with its workers running reports them
# leaked.
. tests/e2e/lib.sh
command -v tmux >/dev/null || fail "tmux is not installed (run 'make deps')"

TM_SOCK="hookscope-tui-threads-$$"
trap 'tm kill-server 2>/dev/null; hs_cleanup' EXIT

# Under a sanitizer runtime no start routine names to check (HS_SAN_THREADS,
# lib.sh); the panel and its counts still are.

start_daemon run -- "$O/apps/demo" --threads
wait_for 20 jq_once '.threading.created >= 6'
[ -n "$HS_SAN_THREADS" ] || once_json | jq -e '.threading.sites[] | select(.start.name == "dt_pool_worker") |
	.created == 2 and .stack[0].name == "dt_dispatcher"' >/dev/null ||
	fail "the JSON snapshot does not name the pool's start routine and creation site"

tm new-session -d -s hs -x 140 -y 40 \
	"env LANG=C.UTF-8 LC_ALL= HOOKSCOPE_STATE_DIR='$HS_TMP/state' '$O/hookscope' \
	ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/tui.err'; exec sleep 600"
wait_screen 20 hs grep -q '^NAME'
tm send-keys -t hs H
wait_screen 20 hs grep -Eq 'threads: [0-9]+ live, [0-9]+ created'
if [ -n "$HS_SAN_THREADS" ]; then
	wait_screen 10 hs grep -Eq 'demo-pool +[0-9]+ running'
	echo "ok (sanitizer build: panel and counts, start routine names not checked)"
	exit 0
fi
wait_screen 10 hs grep -Eq 'demo-dispatch +[0-9]+ running .*dt_dispatcher'
wait_screen 10 hs grep -Eq '\[inferred pool\] dt_pool_worker: 2 threads here'
wait_screen 10 hs grep -Eq 'demo-pool +[0-9]+ running +[0-9.]+% +[0-9.]+[mu]?s +dt_pool_worker'
wait_screen 10 hs grep -Eq 'joined .*dt_task_thread'
screen hs | grep -q '^ *demo .*running.* main$' || { screen hs >&2; fail "no main thread row"; }
# select the first demo-pool worker and open its details
row=$(screen hs | grep -n 'demo-pool' | head -n 1 | cut -d: -f1)
first=$(screen hs | grep -n '^ *THREAD' | cut -d: -f1)
for _ in $(seq 1 $(( row - first - 1 ))); do tm send-keys -t hs Down; done
tm send-keys -t hs Enter
wait_screen 10 hs grep -q 'start routine: dt_pool_worker'
wait_screen 10 hs grep -Eq 'dt_dispatcher\+0x[0-9a-f]+ \[demo\]'
tm send-keys -t hs q
tm send-keys -t hs H
wait_screen 10 hs grep -q '^NAME'

# :reset starts the counts again (the dispatcher keeps creating threads):
# created falls below what it was, the pool's workers stay listed.
before=$(once_json | jq '.threading.created')
"$O/hookscope" --cmd reset "ws://127.0.0.1:$HS_PORT" >/dev/null || fail "reset was refused"
wait_for 10 jq_once ".threading.created < $before and
	([.threading.threads[] | select(.name == \"demo-pool\")] | length == 2)"

# A demo that exits after 20 cycles with its pool workers still running:
# in its final report they are leaked (never joined, never detached); its
# main thread is not.
spawn env HOOKSCOPE_SOCKET="$HS_SOCK" LD_PRELOAD="$HS_PRELOAD" "$O/apps/demo" --threads \
	--cycles 20 --exit >/dev/null 2>&1
short=$SPAWNED
wait_for 20 jq_once ".targets[] | select(.pid == $short) | .state == \"exited\""
jq_once '[.threading.threads[] | select(.name == "demo-pool") | .state] == ["leaked","leaked"]' \
	--target "$short" >/dev/null || fail "pool workers alive at exit are not leaked: \
$(once_json --target "$short" | jq -c '[.threading.threads[] | {name, state}]')"
# ... but the main thread, the one exiting, is not.
jq_once '[.threading.threads[] | select(.id == 0)] | length == 1 and all(.state != "leaked")' \
	--target "$short" >/dev/null || fail "the exiting main thread is called leaked: \
$(once_json --target "$short" | jq -c '[.threading.threads[] | {id, name, state}]')"
echo "ok"
