# engine-perf.sh - the hook engine ranks functions by self time as a sampling
# profiler does ("the five functions with the most self time at
# level 4 are the same five that perf record ranks highest for an identical
# run").  tests/e2e/data/perfwork.c, built with plain `cc -O2 -g`, runs the
# same workload twice:
#   1. under `perf record -e cpu-clock` (software event: hardware counters
#      are not available on this machine kind), no hooks: ranked by self
#      samples (perf report --sort symbol);
#   2. under hookscoped at level 4: ranked by self_ns
#      (hookscope --once --json --sort self) once the target has exited.
# The top five must be the same set; whether the order matches is printed.
# The workload's call counts are checked too (exact counts at level 4).
. tests/e2e/lib.sh

ROUNDS=1500      # about 2 s per run
cc_prog tests/e2e/data/perfwork.c

# 1. perf: self samples per symbol, highest first (perf sorts by overhead).
perf_top=$(perf_top 5 0 "$HS_TMP/perfwork" $ROUNDS) || exit 1

# 2. hookscope at level 4: the same run, the figures of the exited target.
export HOOKSCOPE_LEVEL=4
start_daemon run -- "$HS_TMP/perfwork" $ROUNDS
wait_for 30 jq_once '.targets[0].state == "exited"'
once_json --sort self --top 50 >"$HS_TMP/hs.json" || fail "hookscope --once --json failed"
hs_top=$(jq -r '.funcs[:5][] | .name' "$HS_TMP/hs.json" | tr '\n' ' ')
jq -e '[.funcs[] | {(.name): .calls}] | add
	| .w30 == 1500 and .w20 == 3000 and .w09 == 4500 and .w03 == 37500 and .w01 == 15000' \
	"$HS_TMP/hs.json" >/dev/null ||
	fail "level 4 call counts are not exact: $(jq -c '[.funcs[] | {(.name): .calls}] | add' "$HS_TMP/hs.json")"

set_of() { echo "$1" | tr ' ' '\n' | grep . | sort | tr '\n' ' '; }
[ "$(set_of "$perf_top")" = "$(set_of "$hs_top")" ] ||
	fail "top five by self time differ: perf [$perf_top] hookscope [$hs_top]
perf: $(awk '$2 == "[.]"' "$HS_TMP/report.txt" | head -8 | tr -s ' ' | tr '\n' ';')
hookscope: $(jq -c '[.funcs[:8][] | {(.name): .self_ns}]' "$HS_TMP/hs.json")"
order="same order"
[ "$perf_top" = "$hs_top" ] || order="different order"
echo "ok: top five by self time agree ($order): perf [$perf_top] hookscope [$hs_top]"
echo "  perf self %: $(awk '$2 == "[.]" { printf "%s %s  ", $3, $1 }' "$HS_TMP/report.txt" | cut -c1-120)"
echo "  hookscope self %: $(jq -r '(.funcs | map(.self_ns) | add) as $t
	| [.funcs[:8][] | "\(.name) \(.self_ns * 1000 / $t | round / 10)%"] | join("  ")' "$HS_TMP/hs.json")"
