# block-loops.sh - UI-thread blocks in three real event loops built here with
# plain `cc -O2 -g` (tests/e2e/data/loop-{epoll,glib,uv}.c; GLib and libuv
# are test dependencies): a callback that sleeps 300 ms and one that spins
# 300 ms each give exactly one block of 300 +- 30 ms whose stack names the
# callback with its file:line; five 50 ms messages under the 100 ms
# threshold give none.  The epoll run first installs the program's own
# handler of the agent's signal (SIGRTMAX-4) and raises it 3 times: the
# handler must run 3 times, and the agent's stacks keep working.
. tests/e2e/lib.sh

command -v pkg-config >/dev/null || fail "pkg-config is not installed (run 'make deps')"
pkg-config --exists glib-2.0 || fail "GLib is not installed (libglib2.0-dev; run 'make deps')"
pkg-config --exists libuv || fail "libuv is not installed (libuv1-dev; run 'make deps')"
D=tests/e2e/data
cc -O2 -g -o "$HS_TMP/loop-epoll" $D/loop-epoll.c || fail "cannot build loop-epoll.c"
cc -O2 -g -o "$HS_TMP/loop-glib" $D/loop-glib.c $(pkg-config --cflags --libs glib-2.0) ||
	fail "cannot build loop-glib.c"
cc -O2 -g -o "$HS_TMP/loop-uv" $D/loop-uv.c $(pkg-config --cflags --libs libuv) ||
	fail "cannot build loop-uv.c"

# reported_since MS: the agent's last report is newer than wall-clock MS.
reported_since() { jq_once "(.time_ms - .agent_age_ms) > $1"; }

# check_loop NAME [FIRST ACTIONS]: run it, check the blocks.
check_loop() {
	local name=$1 t blocks n
	shift
	: >"$HS_TMP/daemon.log"
	start_daemon run -- "$HS_TMP/loop-$name" "$@" sleep:300 spin:300 short:50x5
	wait_for 30 grep -q "loop: done short:50x5" "$HS_TMP/daemon.log"
	t=$(date +%s%3N)
	wait_for 10 reported_since "$t"
	once_json >"$HS_TMP/$name.json" || fail "$name: no frame"
	blocks=$(jq -c '[.blocks.list[] | {id, ms: (.dur_ns / 1e6), ended, samples, lost,
		top: [.stacks[0].frames[] | "\(.func) \(.file | split("/") | last):\(.line)"]}]' \
		"$HS_TMP/$name.json")
	echo "$name: blocks $blocks"
	n=$(jq '.blocks.count' "$HS_TMP/$name.json")
	[ "$n" = 2 ] || fail "$name: $n blocks, expected 2 (the sleep and the spin)"
	jq -e '.blocks.list | all(.ended and .dur_ns >= 270e6 and .dur_ns <= 330e6)' \
		"$HS_TMP/$name.json" >/dev/null || fail "$name: a block is not 300 +- 30 ms"
	jq -e '.blocks.list | sort_by(.id) | .[0].stacks[0].frames |
		any(.func == "loop_sleep_callback" and (.file | endswith("loop-work.h")) and .line > 0)' \
		"$HS_TMP/$name.json" >/dev/null ||
		fail "$name: the first block's stack does not name loop_sleep_callback with file:line"
	jq -e '.blocks.list | sort_by(.id) | .[1].stacks[0].frames |
		any(.func == "loop_spin_callback" and (.file | endswith("loop-work.h")) and .line > 0)' \
		"$HS_TMP/$name.json" >/dev/null ||
		fail "$name: the second block's stack does not name loop_spin_callback with file:line"
	stop_daemon
}

check_loop epoll sigown:3
grep -q "loop: own handler called 3 times" "$HS_TMP/daemon.log" ||
	fail "the program's own SIGRTMAX-4 handler did not run 3 times: $(grep 'own handler' "$HS_TMP/daemon.log")"
echo "epoll: the program's own handler of SIGRTMAX-4 ran 3 times"
check_loop glib
check_loop uv
echo "ok: one block of 300 +- 30 ms per long callback in epoll, GLib and libuv, none for 50 ms messages"
