# memory-budget.sh - the sampling interval under the overhead budget, on
# Debian's sqlite3 running the bench's workload (tests/bench/real/
# workload-sql.sh: 60000 statements in a :memory: database; at the default
# 256 KiB interval some 1,500 allocations are recorded, several % of its
# CPU, over the fifth of the budget sampling may cost):
#   1. level 1, default budget: the last record's interval is wider than the
#      default, and its estimate of the bytes allocated is within 25% of the
#      exact figure of a full-tracking run of the same workload (at an
#      interval 8x the default some 200 samples, a 7% standard error; weights
#      drawn at another interval than the sample's would be off by 2x or more);
#   2. an interval the user set (HOOKSCOPE_MEMORY_SAMPLE) is kept as set;
#   3. the budget off: the default interval.
. tests/e2e/lib.sh
[ -x /usr/bin/sqlite3 ] || fail "/usr/bin/sqlite3 is missing (apt-get install sqlite3; mk/deps.sh lists it)"
if [ -n "$HS_SAN_RT" ]; then
	echo "SKIP: under a sanitizer runtime the program's malloc is the sanitizer's, not the agent's"
	exit 0
fi
sh tests/bench/real/workload-sql.sh >"$HS_TMP/w.sql" || fail "cannot write the workload"

# run_sql ENV...: the workload under the agent with ENV; prints the memory
# record's "mode sample_bytes alloc_bytes" once the target exited.
run_sql() {
	local n pid
	n=$(once_json | jq '[.targets[] | select(.name == "sqlite3")] | length')
	env "$@" HOOKSCOPE_SOCKET="$HS_SOCK" LD_PRELOAD="$HS_PRELOAD" \
		/usr/bin/sqlite3 :memory: ".read $HS_TMP/w.sql" >/dev/null || fail "sqlite3 under the agent failed ($*)"
	wait_for 20 jq_once "[.targets[] | select(.name == \"sqlite3\" and .state == \"exited\")] | length == $((n + 1))"
	pid=$(once_json | jq -r '[.targets[] | select(.name == "sqlite3")] | max_by(.started_ms) | .pid')
	once_json --target "$pid" | jq -r '.memory | "\(.mode) \(.sample_bytes) \(.alloc_bytes)"'
}

start_daemon
set -- $(run_sql HOOKSCOPE_LEVEL=1 HOOKSCOPE_MEMORY=full)
[ "$1" = full ] && [ "${3:-0}" -gt 0 ] || fail "no exact figures from the full-tracking run: $*"
exact=$3
set -- $(run_sql HOOKSCOPE_LEVEL=1)
echo "default budget: mode $1, interval $2 bytes, $3 bytes allocated (estimate) for $exact (exact)"
[ "$1" = sampled ] || fail "level 1 under the budget is not sampled: $*"
[ "$2" -gt 262144 ] || fail "the interval stayed at $2 bytes: sampling's cost did not widen it"
echo "$exact $3" | awk '{ e = ($2 - $1) / $1; if (e < 0) e = -e; printf "estimate off by %.1f%%\n", 100 * e; exit !(e <= 0.25) }' ||
	fail "the estimate $3 is more than 25% off the exact $exact"
set -- $(run_sql HOOKSCOPE_LEVEL=1 HOOKSCOPE_MEMORY_SAMPLE=262144)
[ "$2" = 262144 ] || fail "the interval the user set became $2"
set -- $(run_sql HOOKSCOPE_LEVEL=1 HOOKSCOPE_BUDGET=off)
[ "$1" = sampled ] && [ "$2" = 262144 ] || fail "with the budget off: $* (want sampled 262144)"
echo "memory-budget: ok"
