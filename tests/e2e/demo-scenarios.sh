# demo-scenarios.sh - the demo tells its story: `demo --scenario list`
# names the rows, an unknown one is refused with the list, and the tour
# (3 s a row here) announces each problem in turn on its own output while
# hookscope sees that very problem: recompute_checksums hot, jank in the
# frames, a UI block in load_config_sync, a burst of 24 threads from
# spawn_decoders; the ipc and power rows announce themselves (their
# figures are checked by tui-ipc.sh, tui-power.sh and tui-overview.sh).
. tests/e2e/lib.sh

list=$("$O/apps/demo" --scenario list | tr '\n' ' ')
[ "$list" = "tour all hot jank block threads ipc power " ] || fail "scenario list: $list"
out=$("$O/apps/demo" --scenario nope 2>&1) && fail "an unknown scenario ran"
echo "$out" | grep -q "unknown scenario 'nope' (tour, all, hot, jank, block, threads, ipc, power)" ||
	fail "unknown scenario: $out"

start_daemon run -- "$O/apps/demo" --scenario tour:3
log=$HS_TMP/daemon.log
announced() { grep -q "^demo: \[$1/6\] $2: " "$log"; }

wait_for 10 announced 1 hot
wait_for 10 jq_once '[.funcs[] | select(.name == "recompute_checksums" and .calls > 100)] | length == 1'
wait_for 10 announced 2 jank
wait_for 10 jq_once '.fps.streams[] | select(.name == "ui" and .jank > 0)'
wait_for 10 announced 3 block
wait_for 10 jq_once '[.blocks.list[].stacks[].frames[] | select(.func == "load_config_sync")] | length > 0'
wait_for 10 announced 4 threads
wait_for 10 jq_once '.threading.created >= 24'
wait_for 10 announced 5 ipc
wait_for 10 announced 6 power
# ... and round again.
wait_for 10 sh -c "[ \$(grep -c '^demo: \[[1-6]/6\] ' '$log') -ge 7 ]"
grep '^demo: \[[1-6]/6\] ' "$log" | sed -n 7p | grep -q '^demo: \[1/6\] hot: ' ||
	fail "the tour did not start again with the hot function"
grep '^demo: \[' "$log"
echo "ok: the tour announced and showed each problem in turn"
