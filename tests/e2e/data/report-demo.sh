# report-demo.sh - sourced by the report-* and metrics-* tests after lib.sh:
# start_report_demo [MS [DEMO OPTIONS...]] runs the demo under a real
# hookscoped with frames at 60 Hz on its render thread and a 300 ms UI-thread
# block every MS ms (--loop, watched as the UI thread), and waits for the
# first ended block (and with --ipc, for the IPC scenario's end first: its
# helper process is the newest target meanwhile); sets DEMO_PID, RENDER_TID
# and LOOP_TID from a real frame.
start_report_demo() {
	local ms=${1:-700}
	[ $# -gt 0 ] && shift
	start_daemon run --ui-thread demo-loop -- "$O/apps/demo" --render 60 --loop "$ms" "$@"
	case " $* " in
	*" --ipc "*) wait_for 30 grep -q "demo: ipc scenario: [0-9]* calls" "$HS_TMP/daemon.log" ;;
	esac
	wait_for 30 jq_once '.blocks.list[] | select(.ended)'
	wait_for 20 jq_once '.fps.streams[] | select(.name == "demo" and .frames > 120)'
	once_json >"$HS_TMP/frame.json" || fail "no frame"
	DEMO_PID=$(jq -r '.pid' "$HS_TMP/frame.json")
	RENDER_TID=$(jq -r '.fps.streams[] | select(.name == "demo") | .tid' "$HS_TMP/frame.json")
	LOOP_TID=$(jq -r '.blocks.ui_tid' "$HS_TMP/frame.json")
	[ "$DEMO_PID" -gt 0 ] && [ "$RENDER_TID" -gt 0 ] && [ "$LOOP_TID" -gt 0 ] ||
		fail "no pid/render tid/loop tid in the frame: $DEMO_PID $RENDER_TID $LOOP_TID"
}

# start_report_demo_ipc_power: the same demo with its power scenario first
# (2 s: the kernel wakelock demo-wakelock held 1 s then released, an IIO
# sensor buffer enabled and the wakelock demo-leaked taken, both never given
# back, under a scratch HOOKSCOPE_POWER_SYSFS), then its IPC scenario on the
# main thread (3 s of requests to a forked helper over a unix socket, every
# 4th answer 250 ms late: slow calls), then 30 cycles of the usual work;
# `threshold hold 1` makes the sensor and demo-leaked leaks.  Returns once
# the demo reports it all.
start_report_demo_ipc_power() {
	export HOOKSCOPE_POWER_SYSFS=$HS_TMP/sys
	start_report_demo 700 --power 2 --ipc --cycles 30 --period-ms 100
	"$O/hookscope" --cmd "threshold hold 1" --target "$DEMO_PID" "ws://127.0.0.1:$HS_PORT" \
		>/dev/null || fail "threshold hold refused"
	# (frames give booleans as 0/1, which jq takes as true)
	wait_for 20 jq_once 'def yes: . == true or . == 1;
		.ipc.slow_count >= 2 and any(.funcs[]; .name == "slow_work") and
		any(.power.resources[]; .name == "demo-wakelock" and .releases == 1) and
		any(.power.resources[]; .category == "sensor" and (.held | yes) and (.leaked | yes)) and
		any(.power.resources[]; .name == "demo-leaked" and (.held | yes) and (.leaked | yes))' \
		--target "$DEMO_PID"
}

# dump FILE [OPTIONS]: a report through the real client.
dump() {
	local file=$1; shift
	"$O/hookscope" --dump "$file" "$@" "ws://127.0.0.1:$HS_PORT" >/dev/null ||
		fail "hookscope --dump $file $* failed"
}

PY=${PYTHON:-python3}
