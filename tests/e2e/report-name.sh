# report-name.sh - where reports may go: a dump name with ../, a slash or a
# leading dot is refused and nothing is written anywhere; a plain name is
# used inside the report directory.  A report that cannot be written whole
# (the daemon's file size limit is smaller than the report: write() fails
# half way, as on a full disk; or the directory is not one) is a clear error
# naming the directory, leaves no file and no temporary in it, and the
# client still gets the report.
. tests/e2e/lib.sh
start_daemon run -- "$O/apps/demo" --cycles 5 --period-ms 10
wait_for 20 jq_once '.funcs[] | select(.name == "slow_work" and .calls == 5)'
cmd() { "$O/hookscope" --cmd "$1" "ws://127.0.0.1:$HS_PORT"; }
for name in ../escape ../../tmp/escape a/b .hidden "" "x y"; do
	if cmd "dump -n '$name'" >"$HS_TMP/out" 2>&1; then
		fail "dump -n '$name' succeeded: $(cat "$HS_TMP/out")"
	fi
	grep -q "bad report name" "$HS_TMP/out" || fail "dump -n '$name': $(cat "$HS_TMP/out")"
done
[ -z "$(ls -A "$HS_TMP/reports")" ] || fail "refused names left files: $(ls -A "$HS_TMP/reports")"
find "$HS_TMP" /tmp -maxdepth 2 -name 'escape*' 2>/dev/null | grep -q . && fail "a report escaped"
cmd "dump -f json -n my-run.1" >"$HS_TMP/out" || fail "dump -n my-run.1: $(cat "$HS_TMP/out")"
ls "$HS_TMP/reports" | grep -q '^my-run\.1-[0-9]\{8\}-[0-9]\{6\}\.json$' ||
	fail "named report not in the dir: $(ls "$HS_TMP/reports")"
cmd "dump -f nosuch" >"$HS_TMP/out" 2>&1 && fail "dump -f nosuch succeeded"
grep -q "format must be" "$HS_TMP/out" || fail "bad format: $(cat "$HS_TMP/out")"
# The client saves whole or not at all too.
if "$O/hookscope" --dump "$HS_TMP/nodir/r.txt" "ws://127.0.0.1:$HS_PORT" 2>"$HS_TMP/err"; then
	fail "saving into a missing directory succeeded"
fi
grep -q "cannot write $HS_TMP/nodir/r.txt: No such file or directory" "$HS_TMP/err" ||
	fail "client error: $(cat "$HS_TMP/err")"
echo old >"$HS_TMP/keep.txt"
"$O/hookscope" --dump "$HS_TMP/keep.txt" "ws://127.0.0.1:$HS_PORT" >/dev/null || fail "dump over a file"
grep -q "hookscope report" "$HS_TMP/keep.txt" || fail "the file was not replaced"
ls -a "$HS_TMP" | grep -q 'keep\.txt\.' && fail "temporary file left next to keep.txt"
stop_daemon

# Too large for the file size limit: every format fails cleanly.
HS_PORT=$(free_port)
mkdir -p "$HS_TMP/small"
spawn sh -c "ulimit -f 2; exec '$O/hookscoped' --port $HS_PORT --socket '$HS_SOCK' \
	--report-dir '$HS_TMP/small' run -- '$O/apps/demo' --cycles 5 --period-ms 10" \
	>>"$HS_TMP/daemon.log" 2>&1
DAEMON_PID=$SPAWNED
wait_for 10 port_listening "$HS_PORT"
wait_for 20 jq_once '.funcs[] | select(.name == "slow_work" and .calls == 5)'
for f in text json; do
	if "$O/hookscope" --dump "$HS_TMP/big.$f" --format $f "ws://127.0.0.1:$HS_PORT" 2>"$HS_TMP/err"; then
		fail "$f: a report over the size limit reported success"
	fi
	grep -q "cannot write a report in $HS_TMP/small: File too large" "$HS_TMP/err" ||
		fail "$f: unclear error: $(cat "$HS_TMP/err")"
	[ -s "$HS_TMP/big.$f" ] || fail "$f: the client did not get the report"
	[ -z "$(ls -A "$HS_TMP/small")" ] || fail "$f: left in the dir: $(ls -A "$HS_TMP/small")"
	kill -0 "$DAEMON_PID" || fail "the daemon died"
done
echo "ok: bad names refused, named report in place; over-limit reports: $(head -c 160 "$HS_TMP/err")"
