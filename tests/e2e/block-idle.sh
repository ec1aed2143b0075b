# block-idle.sh - an idle GLib main loop (tests/e2e/data/loop-glib.c with no
# actions, built here) left alone for 30 s under the agent reports no
# block; the one long test of the block collector.
. tests/e2e/lib.sh

pkg-config --exists glib-2.0 || fail "GLib is not installed (libglib2.0-dev; run 'make deps')"
cc -O2 -g -o "$HS_TMP/loop-glib" tests/e2e/data/loop-glib.c $(pkg-config --cflags --libs glib-2.0) ||
	fail "cannot build loop-glib.c"
start_daemon run -- "$HS_TMP/loop-glib"
wait_for 20 jq_once '.blocks.ui_tid > 0 and .targets[0].state == "live"'
t0=$(date +%s)
while [ $(( $(date +%s) - t0 )) -lt 30 ]; do
	n=$(once_json | jq '.blocks.count') || fail "no frame"
	[ "$n" = 0 ] || fail "an idle loop reported $n blocks: $(once_json | jq -c .blocks.list)"
	sleep 5
done
jq_once '.targets[0].state == "live" and .agent_age_ms < 2000' >/dev/null ||
	fail "the agent stopped reporting"
echo "ok: an idle GLib loop gave no block in 30 s"
