# tui-names.sh - the functions view's NAME column in a real terminal (tmux)
# with two names sharing a 30-character prefix, fed by hs-fakeagent: at 110
# columns both show whole (the name takes the width the terminal has, the
# share bar what is left); at 70 columns both are cut, in the middle, and
# still show differently (their ends differ).
. tests/e2e/lib.sh

command -v tmux >/dev/null || fail "tmux is not installed (run 'make deps')"
TM_SOCK="hookscope-tui-names-$$"
trap 'tm kill-server 2>/dev/null; hs_cleanup' EXIT

short=handleClientsWithPendingWrites
long=handleClientsWithPendingWritesUsingThreads

start_daemon
spawn "$O/tools/hs-fakeagent" --socket "$HS_SOCK" --pid 999970 --names "$short,$long,main" >/dev/null
wait_for 20 jq_once "[.funcs[] | select(.name == \"$short\" or .name == \"$long\")] | length == 2"

# The NAME cells (first word of each row below the header) of window $1.
names() { screen "$1" | awk '/^NAME/ { t = 1; next } t && NF > 1 { print $1 }'; }

tm new-session -d -s hs -n w110 -x 110 -y 30 "env LANG=C.UTF-8 LC_ALL= '$O/hookscope' \
	--target 999970 ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/w110.err'; exec sleep 600"
tm send-keys -t w110 1
both_whole() {
	local scr
	scr=$(cat)
	echo "$scr" | grep -q "^$short " && echo "$scr" | grep -q "^$long "
}
wait_screen 20 w110 both_whole
echo "--- 110 columns ---"; screen w110

tm new-window -t hs -n w70 "env LANG=C.UTF-8 LC_ALL= '$O/hookscope' \
	--target 999970 ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/w70.err'; exec sleep 600"
tm resize-window -t w70 -x 70 -y 30
tm send-keys -t w70 1
# Both cut (an ellipsis between head and tail), and different.
both_cut() {
	local scr a b
	scr=$(cat)
	a=$(echo "$scr" | grep -E '^handle[A-Za-z]*…[A-Za-z]*Writes ' | awk '{ print $1 }')
	b=$(echo "$scr" | grep -E '^handle[A-Za-z]*…[A-Za-z]*Threads ' | awk '{ print $1 }')
	[ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ]
}
wait_screen 20 w70 both_cut
echo "--- 70 columns ---"; screen w70
[ "$(names w70 | sort -u | wc -l)" -eq "$(names w70 | wc -l)" ] || fail "two rows show the same name at 70 columns"
echo "PASS"
