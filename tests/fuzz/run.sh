#!/bin/sh
# run.sh - run the libFuzzer targets built in $O/fuzz (make fuzz-build).
#   O=build FUZZ_SECONDS=60 sh tests/fuzz/run.sh [NAME...]   (make fuzz)
#   O=build sh tests/fuzz/run.sh --smoke NAME                (make test)
# Each target runs on a scratch copy of tests/fuzz/corpus/NAME/ (new inputs
# found are not written back; copy them by hand when worth keeping).  Prints
# one line per target: executions, corpus growth, findings (crash, leak,
# timeout and out-of-memory artifacts, kept in $O/fuzz/findings/NAME/).
# Exit status: non-zero when a target is missing or has a finding.
O=${O:-build}
seconds=${FUZZ_SECONDS:-60}
smoke=""
[ "${1:-}" = --smoke ] && { smoke=1; shift; }
names=${*:-$(for f in tests/fuzz/fuzz-*.c; do basename "$f" .c | sed 's/^fuzz-//'; done)}
bad=0
for name in $names; do
	bin=$O/fuzz/fuzz-$name
	if [ ! -x "$bin" ]; then
		echo "fuzz-$name: not built ($bin missing: run 'make fuzz-build'; needs clang-14 and libclang-rt-14-dev)"
		bad=1
		continue
	fi
	[ -d "tests/fuzz/corpus/$name" ] || { echo "fuzz-$name: no seed corpus tests/fuzz/corpus/$name/"; bad=1; continue; }
	work=$(mktemp -d /tmp/hookscope-fuzz.XXXXXX)
	find=$O/fuzz/findings/$name
	mkdir -p "$work/corpus" "$work/art"
	cp "tests/fuzz/corpus/$name"/* "$work/corpus/"
	seeds=$(ls "$work/corpus" | wc -l)
	# Smoke (make test): every seed, then a bounded number of mutations.
	if [ -n "$smoke" ]; then
		limit="-runs=3000"
	else
		limit="-max_total_time=$seconds"
	fi
	# -rss_limit_mb: a decoder that believes a count must not get far.
	"$bin" $limit -timeout=10 -rss_limit_mb=1024 -max_len=65536 -print_final_stats=1 \
		-artifact_prefix="$work/art/" "$work/corpus" >"$work/log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
	after=$(ls "$work/corpus" | wc -l)
	findings=$(ls "$work/art" | grep -c '^\(crash\|leak\|timeout\|oom\|slow-unit\)-')
	echo "fuzz-$name: ${execs:-0} executions, corpus $seeds -> $after, $findings findings (exit $rc)"
	if [ "$rc" -ne 0 ] || [ "$findings" -gt 0 ]; then
		bad=1
		grep -m 20 -E 'ERROR|SUMMARY|runtime error|Test unit written|#0 |#1 |#2 ' "$work/log" | sed 's/^/    /'
		mkdir -p "$find" && cp "$work/art"/* "$find/" 2>/dev/null
		ls "$work/art" | sed "s|^|    finding: $find/|"
	fi
	rm -rf "$work"
done
exit $bad
