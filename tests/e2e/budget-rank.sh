# budget-rank.sh - with the default budget forcing demotions, the ranking by
# self time stays a sampling profiler's: tests/apps/tinyfuncs (plain
# `cc -O2 -g`: the hook engine) runs twice, under `perf record -e cpu-clock`
# without hooks, and under hookscoped at level 4 with the default budget.
# The ten functions with the most self time must be the ten perf ranks
# highest among those with at least 1% of its samples.  The workload's
# dispatch calls forty tiny functions that the budget demotes: if its self
# time absorbed their time it would rank above work_9 (perf: below it).
. tests/e2e/lib.sh

ITER=3000
cc_prog tests/apps/tinyfuncs/tinyfuncs.c

# 1. perf: the ten with the most self samples, of those with >= 1% of them.
perf_top=$(perf_top 10 1 "$HS_TMP/tinyfuncs" $ITER) || exit 1

# 2. hookscope at level 4, default budget: the same run, once it exited.
export HOOKSCOPE_LEVEL=4
start_daemon run -- "$HS_TMP/tinyfuncs" $ITER
wait_for 60 jq_once '.targets[0].state == "exited"'
once_json --sort self --top 100 >"$HS_TMP/hs.json" || fail "hookscope --once --json failed"
demoted=$(jq '[.funcs[] | select(.mode != "timed")] | length' "$HS_TMP/hs.json")
[ "$demoted" -gt 0 ] || fail "the default budget demoted nothing (the test needs demotions)"
hs_top=$(jq -r '.funcs[:10][] | .name' "$HS_TMP/hs.json" | tr '\n' ' ')

set_of() { echo "$1" | tr ' ' '\n' | grep . | sort | tr '\n' ' '; }
[ "$(set_of "$perf_top")" = "$(set_of "$hs_top")" ] ||
	fail "top ten by self time differ: perf [$perf_top] hookscope [$hs_top]
perf: $(awk '$2 == "[.]"' "$HS_TMP/report.txt" | head -14 | tr -s ' ' | tr '\n' ';')
hookscope: $(jq -c '[.funcs[:14][] | {(.name): [.self_ns, .mode]}]' "$HS_TMP/hs.json")"
order="same order"
[ "$perf_top" = "$hs_top" ] || order="different order"
echo "ok: top ten by self time agree ($order) with $demoted functions demoted: perf [$perf_top] hookscope [$hs_top]"
echo "  perf self %: $(awk '$2 == "[.]" { printf "%s %s  ", $3, $1 }' "$HS_TMP/report.txt" | cut -c1-200)"
echo "  hookscope self %: $(jq -r '(.funcs | map(.self_ns) | add) as $t
	| [.funcs[:12][] | "\(.name) \(.self_ns * 1000 / $t | round / 10)%"] | join("  ")' "$HS_TMP/hs.json")"
