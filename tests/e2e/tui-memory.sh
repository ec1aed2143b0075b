# tui-memory.sh - the memory view in the interactive hookscope in tmux:
# build/apps/memleak grow (leak_steady leaks 4 KiB every 50 ms, full
# tracking, a 4 s leak window): key 9 shows the heap, the sites by bytes in
# use with leak_steady first and marked LEAK; Enter shows its stack
# (leak_steady called from main); the overview has the memory box.  Then
# `:leaks`: the view shows the scan's line (leak_steady drops every block
# it allocates: definitely lost) and Enter lists the lost blocks' stacks.
. tests/e2e/lib.sh

command -v tmux >/dev/null || fail "tmux is not installed (run 'make deps')"
if [ -n "$HS_SAN_RT" ]; then
	echo "SKIP: under a sanitizer runtime the program's malloc is the sanitizer's, not the agent's"
	exit 0
fi
TM_SOCK="hookscope-tui-memory-$$"
trap 'tm kill-server 2>/dev/null; hs_cleanup' EXIT

start_daemon
spawn env HOOKSCOPE_MEMORY=full HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD "$O/apps/memleak" grow 60
pid=$SPAWNED
wait_for 20 jq_once ".targets[] | select(.pid == $pid and .state == \"live\")"
"$O/hookscope" --cmd "target $pid" --cmd "threshold leak 4" "ws://127.0.0.1:$HS_PORT" >/dev/null ||
	fail "threshold leak 4 was refused"

tm new-session -d -s hs -x 160 -y 45 \
	"env LANG=C.UTF-8 LC_ALL= HOOKSCOPE_STATE_DIR='$HS_TMP/state' '$O/hookscope' --target $pid \
	ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/tui.err'; exec sleep 600"
wait_screen 20 hs grep -q 'hot functions'
wait_screen 10 hs grep -Eq 'Memory \(full\): heap [0-9.]+[KM] in [0-9]+ blocks'
echo "--- overview ---"
screen hs | grep -A3 'Memory' | head -n 5
tm send-keys -t hs 9
wait_screen 10 hs grep -Eq '^ +IN USE +BLOCKS +ALLOC +GROWTH +SITE'
wait_screen 15 hs grep -Eq '^ +[0-9.]+[KM] +[0-9]+ +[0-9.]+[KM]/s +[0-9.]+[KM]/s LEAK  leak_steady$'
wait_screen 10 hs grep -q 'suspected leaks: 1'
echo "--- memory view ---"
screen hs | head -n 12
# the first row is the biggest: leak_steady
screen hs | grep -E '^ +[0-9.]+[BKM] ' | head -n 1 | grep -q 'leak_steady' || fail "leak_steady is not the first site"
tm send-keys -t hs Home Enter
wait_screen 10 hs grep -q 'allocating site'
wait_screen 10 hs grep -q 'SUSPECTED LEAK'
screen hs | grep -q 'leak_steady' || fail "no leak_steady frame in the stack"
screen hs | grep -q 'main' || fail "no main frame in the stack"
echo "--- stack ---"
screen hs | sed -n '1,20p'
tm send-keys -t hs Escape
tm send-keys -t hs ':leaks' Enter
wait_screen 20 hs grep -Eq 'Leak scan 1: definitely lost [0-9.]+[KM] in [0-9]+ blocks from [0-9]+ stacks'
echo "--- leak scan ---"
screen hs | grep 'Leak scan'
tm send-keys -t hs Home Enter
wait_screen 10 hs grep -Eq '[0-9]+ bytes in [0-9]+ blocks definitely lost \('
screen hs | grep -A3 'definitely lost (' | grep -q leak_steady || fail "no leak_steady stack among the lost blocks"
echo "ok: the memory view shows the leaking site first, flagged, and its stack; :leaks finds its blocks lost"
