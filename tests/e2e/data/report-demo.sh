# report-demo.sh - sourced by the report-* and metrics-* tests after lib.sh:
# start_report_demo runs the demo under a real hookscoped with frames at
# 60 Hz on its render thread and a 300 ms UI-thread block every MS ms
# (--loop, watched as the UI thread), and waits for the first ended block;
# sets DEMO_PID, RENDER_TID and LOOP_TID from a real frame.
start_report_demo() {
	local ms=${1:-700}
	start_daemon run --ui-thread demo-loop -- "$O/apps/demo" --render 60 --loop "$ms"
	wait_for 30 jq_once '.blocks.list[] | select(.ended)'
	wait_for 20 jq_once '.fps.streams[] | select(.name == "demo" and .frames > 120)'
	once_json >"$HS_TMP/frame.json" || fail "no frame"
	DEMO_PID=$(jq -r '.pid' "$HS_TMP/frame.json")
	RENDER_TID=$(jq -r '.fps.streams[] | select(.name == "demo") | .tid' "$HS_TMP/frame.json")
	LOOP_TID=$(jq -r '.blocks.ui_tid' "$HS_TMP/frame.json")
	[ "$DEMO_PID" -gt 0 ] && [ "$RENDER_TID" -gt 0 ] && [ "$LOOP_TID" -gt 0 ] ||
		fail "no pid/render tid/loop tid in the frame: $DEMO_PID $RENDER_TID $LOOP_TID"
}

# dump FILE [OPTIONS]: a report through the real client.
dump() {
	local file=$1; shift
	"$O/hookscope" --dump "$file" "$@" "ws://127.0.0.1:$HS_PORT" >/dev/null ||
		fail "hookscope --dump $file $* failed"
}

PY=${PYTHON:-python3}
