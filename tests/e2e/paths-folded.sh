# paths-folded.sh - the folded dump of the timing collector's call paths
# (self time per path) against perf: tests/e2e/data/hotpaths.c, CPU-bound,
# built with plain `cc -O2 -g` (hooked by the engine's relocated
# prologues), run once under `perf record --call-graph dwarf` (user-mode
# CPU-clock samples, inlined frames left out: the hooks see functions, not
# inlined bodies) and once under hookscoped at level 4 (real-time, so its
# wall-clock self times are CPU time as perf's samples are), each to its
# end.  The five heaviest paths of `dump -f folded` must be perf's five
# heaviest sampled stacks, in the same order.  Under the default budget
# call paths come on once a decision 2 s in finds them affordable: 6000
# rounds (4-5 s) give them more than half the run.
. tests/e2e/lib.sh

command -v perf >/dev/null || fail "perf is not installed (apt-get install linux-perf; mk/deps.sh lists it)"
chrt -f 10 true || fail "cannot run a real-time process (chrt -f 10): the test needs root or CAP_SYS_NICE"
cc -O2 -g -o "$HS_TMP/hotpaths" tests/e2e/data/hotpaths.c || fail "cannot build hotpaths.c with cc -O2 -g"
rounds=6000

# perf's stacks folded, root first, the C runtime's frames below main dropped.
perf record -q -e cpu-clock:u -F 999 --call-graph dwarf -o "$HS_TMP/perf.data" -- \
	"$HS_TMP/hotpaths" $rounds >"$HS_TMP/perf.out" 2>&1 || fail "perf record fails: $(cat "$HS_TMP/perf.out")"
perf script -i "$HS_TMP/perf.data" -F ip,sym --no-inline 2>/dev/null | awk 'BEGIN { RS = "" }
	{ n = split($0, l, "\n"); p = ""
	  for (i = n; i >= 1; i--) { split(l[i], w, " "); if (w[2] ~ /^(_start|__libc_start)/) continue
	                              p = p (p == "" ? "" : ";") w[2] }
	  c[p]++ }
	END { for (k in c) print k, c[k] }' | sort -k2,2nr >"$HS_TMP/perf.folded"
[ -s "$HS_TMP/perf.folded" ] || fail "perf recorded no stacks"

start_daemon run --level 4 -- chrt -f 10 "$HS_TMP/hotpaths" $rounds
wait_for 120 grep -q "target pid [0-9]* ended" "$HS_TMP/daemon.log"
"$O/hookscope" --dump "$HS_TMP/r.folded" "ws://127.0.0.1:$HS_PORT" >/dev/null || fail "hookscope --dump failed"
stop_daemon
bad=$(grep -Ev '^[^; ][^;]*(;[^;]+)* [0-9]+$' "$HS_TMP/r.folded")
[ -z "$bad" ] || fail "lines not in folded format: $bad"
grep -v '^\[ui blocks\];' "$HS_TMP/r.folded" | sort -k2,2nr >"$HS_TMP/hs.folded"

want=$(head -5 "$HS_TMP/perf.folded" | cut -d' ' -f1)
got=$(head -5 "$HS_TMP/hs.folded" | cut -d' ' -f1)
echo "perf (samples):"; head -6 "$HS_TMP/perf.folded" | sed 's/^/  /'
echo "hookscope (us of self time):"; head -6 "$HS_TMP/hs.folded" | sed 's/^/  /'
[ "$got" = "$want" ] || fail "the five heaviest paths differ from perf's"
echo "ok: the folded dump's five heaviest call paths are perf's, in the same order"
