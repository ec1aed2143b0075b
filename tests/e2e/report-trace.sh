# report-trace.sh - the Chrome trace event report, read as Perfetto's JSON
# importer reads it (tests/e2e/data/trace-check.py): frames, blocks and slow
# IPC calls as slices on their threads, FPS, threads and held power
# resources as counters, thread names.
. tests/e2e/lib.sh
. tests/e2e/data/report-demo.sh
start_report_demo_ipc_power
dump "$HS_TMP/r.trace.json"
ls "$HS_TMP/reports" | grep -q "^hookscope-$DEMO_PID-[0-9-]*\.trace\.json$" ||
	fail "no trace in the report dir: $(ls "$HS_TMP/reports")"
$PY tests/e2e/data/trace-check.py "$HS_TMP/r.trace.json" "$DEMO_PID" "$RENDER_TID" "$LOOP_TID" ||
	fail "the trace does not read as expected"
