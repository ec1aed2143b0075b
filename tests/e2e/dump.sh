# dump.sh - the plain text report: saved by the client, written atomically in
# the daemon's report directory; an unwritable directory is a clear error and
# leaves no partial file.
. tests/e2e/lib.sh
start_daemon run -- "$O/apps/demo" --cycles 10 --period-ms 10
wait_for 20 jq_once '.funcs[] | select(.name == "slow_work" and .calls == 10)'
"$O/hookscope" --dump "$HS_TMP/report.txt" "ws://127.0.0.1:$HS_PORT" || fail "--dump failed"
grep -q slow_work "$HS_TMP/report.txt" || fail "report does not name slow_work"
grep -q demo "$HS_TMP/report.txt" || fail "report does not name the target"
n=$(ls "$HS_TMP/reports" | grep -c '^hookscope-[0-9]*-.*\.txt$')
[ "$n" = 1 ] || fail "want one report in the report dir, found: $(ls "$HS_TMP/reports")"
cmp -s "$HS_TMP/report.txt" "$HS_TMP/reports"/hookscope-*.txt || fail "saved report differs from the daemon's copy"
# slow_work ranks above fast_hash in the report (ranking by total time).
awk '/slow_work/ {s = NR} /fast_hash/ {f = NR} END {exit !(s && f && s < f)}' "$HS_TMP/report.txt" ||
	fail "report is not ranked by total time"
ls -a "$HS_TMP/reports" | grep -q '\.tmp' && fail "temporary file left in the report dir"
stop_daemon

# Unwritable report directory: a clear error, no partial file anywhere.
: >"$HS_TMP/notadir"
HS_PORT=$(free_port)
spawn "$O/hookscoped" --port "$HS_PORT" --socket "$HS_SOCK" --report-dir "$HS_TMP/notadir/reports" \
	run -- "$O/apps/demo" --cycles 3 --period-ms 10 >>"$HS_TMP/daemon.log" 2>&1
DAEMON_PID=$SPAWNED
wait_for 10 port_listening "$HS_PORT"
wait_for 20 jq_once '.funcs[] | select(.name == "slow_work" and .calls == 3)'
if "$O/hookscope" --dump "$HS_TMP/r2.txt" "ws://127.0.0.1:$HS_PORT" 2>"$HS_TMP/err"; then
	fail "dump into an unwritable directory reported success"
fi
grep -q "notadir" "$HS_TMP/err" || fail "the error does not name the directory: $(cat "$HS_TMP/err")"
echo "ok: report saved, ranked, atomic; unwritable dir reported: $(head -c 200 "$HS_TMP/err")"
