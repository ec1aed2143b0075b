# issues-store.sh - the local issue store stays within a tiny limit while
# demos keep raising new issues: one demo after another (each a new process,
# so its blocks and frames are new issues) for 24 s (HS_ISSUES_STORE_SECONDS), the store limited to
# 4 files and 12 KiB; a sampler lists the directory every 50 ms and records
# any moment over either limit.  At the end the files kept are the newest
# (the highest raise numbers ever seen), and a restarted daemon keeps them.
. tests/e2e/lib.sh

D=$HS_TMP/issues
start_daemon --issue-dir "$D" --issue-max-files 4 --issue-max-bytes 12K
mkdir -p "$D"

# sampler: every 50 ms, the files and bytes in the store; names ever seen
(
	while :; do
		n=0 b=0
		for f in "$D"/*.json; do
			[ -e "$f" ] || continue
			s=$(stat -c %s "$f" 2>/dev/null) || continue
			n=$((n + 1)) b=$((b + s))
			echo "${f##*/}" >>"$HS_TMP/seen"
		done
		[ $n -le 4 ] && [ $b -le 12288 ] || echo "$n files, $b bytes" >>"$HS_TMP/over"
		echo "$n $b" >>"$HS_TMP/samples"
		sleep 0.05
	done
) &
SAMPLER=$!
HS_PIDS="$HS_PIDS $SAMPLER"

end=$(( $(date +%s) + ${HS_ISSUES_STORE_SECONDS:-24} ))
demos=0
while [ "$(date +%s)" -lt $end ]; do
	HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD timeout -s INT 4 "$O/apps/demo" --scenario block:4 \
		>>"$HS_TMP/demo.log" 2>&1
	demos=$((demos + 1))
done
# the daemon stopped (no issue after it), the sampler sees the end state
stop_daemon
n=$(wc -l <"$HS_TMP/samples")
wait_for 5 sh -c "[ \$(wc -l <'$HS_TMP/samples') -gt $((n + 1)) ]"
kill "$SAMPLER"
wait "$SAMPLER" 2>/dev/null
[ ! -s "$HS_TMP/over" ] || fail "the store went over its limit: $(head -3 "$HS_TMP/over")"
raised=$(sort -u "$HS_TMP/seen" | wc -l)
[ "$raised" -gt 8 ] || fail "only $raised issue files were ever written by $demos demos"
# the newest kept: the files left are the highest raise numbers seen
sort -u "$HS_TMP/seen" | tail -n "$(ls "$D"/*.json | wc -l)" >"$HS_TMP/newest"
ls "$D" | grep '\.json$' | sort >"$HS_TMP/left"
cmp -s "$HS_TMP/newest" "$HS_TMP/left" || fail "the store kept $(cat "$HS_TMP/left" | tr '\n' ' ') not the newest"
# a restart keeps them and goes on from the highest number
start_daemon --issue-dir "$D" --issue-max-files 4 --issue-max-bytes 12K
ls "$D" | grep '\.json$' | sort | cmp -s - "$HS_TMP/left" || fail "a restart changed the store"
last=$(tail -n 1 "$HS_TMP/left" | cut -c1-12)
HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD timeout -s INT 4 "$O/apps/demo" --scenario block:4 \
	>>"$HS_TMP/demo.log" 2>&1
# A demo raises several issues: the store may have rotated past last + 1 already.
past_last() {
	n=$(ls "$D" | grep '\.json$' | sort | tail -n 1 | cut -c1-12)
	[ -n "$n" ] && [ $((10#$n)) -gt $((10#$last)) ]
}
wait_for 10 past_last
echo "ok: $demos demos raised $raised issues; the store never held over 4 files or 12 KiB" \
	"($(wc -l <"$HS_TMP/samples") samples) and kept the newest, across a restart"
