# quiet.sh - sourced by the benches (run.sh, real.sh): measure in quiet runs.
# This machine kind's vCPUs each switch between a fast speed and one 1.3-1.8x
# slower (another guest on the host), for a tenth of a second to tens of
# seconds at a time, so a run's CPU time measures the host too
# (doc/performance.md, "Quiet runs").  A run made with `quietly` waits until
# $B/phase-probe finds every CPU fast (its slowest CPU within 1.15x of the
# fastest CPU's median speed; at most HS_BENCH_QUIET_WAIT s, default 20, and
# HS_BENCH_QUIET_TOTAL s over the whole bench, default 900), and is quiet when
# the probe after it finds them fast again.
# Needs: $B (the bench binaries), $tmp (a scratch directory), die.
QUIET_WAIT=${HS_BENCH_QUIET_WAIT:-20}
QUIET_TOTAL=${HS_BENCH_QUIET_TOTAL:-900}
case $QUIET_WAIT$QUIET_TOTAL in '' | *[!0-9]*) die "HS_BENCH_QUIET_WAIT and _TOTAL must be numbers of seconds" ;; esac
[ -x "$B/phase-probe" ] || die "$B/phase-probe is missing (run 'make bench')"

quiet_median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

# quiet: probe the CPUs for 100 ms; true when all ran fast.  quiet_best: the
# fast speed, the median of the fastest CPU's speed over every probe so far
# (ns per probe iteration; nearly always one CPU is fast, and a median is not
# dragged down by a lucky chunk).
quiet_best=""
quiet() {
	q=$("$B/phase-probe" 100) || die "$B/phase-probe failed"
	set -- $(printf '%s\n' "$q" | sed -n 's/^fast=\([0-9.]*\) slow=\([0-9.]*\) .*/\1 \2/p')
	[ $# = 2 ] || die "unexpected output of $B/phase-probe: $q"
	echo "$1" >>"$tmp/quiet.fast"
	quiet_best=$(quiet_median <"$tmp/quiet.fast")
	awk -v b="$quiet_best" -v s="$2" 'BEGIN { exit !(s <= 1.15 * b) }'
}

# quiet_wait: probe until every CPU is fast, at most QUIET_WAIT s and what
# is left of QUIET_TOTAL; false if they never were.  What it waited goes to
# $tmp/quiet.log (a file: a run may be made in a subshell, a pipeline's).
quiet_waited() { awk '{ s += $2 } END { print s + 0 }' "$tmp/quiet.log" 2>/dev/null || echo 0; }
quiet_wait() {
	t0=$(date +%s) t=0 ok=1 before=$(quiet_waited)
	until quiet; do
		t=$(( $(date +%s) - t0 ))
		[ "$t" -lt "$QUIET_WAIT" ] && [ $((before + t)) -lt "$QUIET_TOTAL" ] || { ok=0; break; }
	done
	echo "waited $t" >>"$tmp/quiet.log"
	[ $ok = 1 ]
}

# quietly CMD...: CMD between two probes, its output as it is, then a line
# quiet=1 when both found every CPU fast, else quiet=0 (and the same line in
# $tmp/quiet.log).
quietly() {
	if quiet_wait; then qa=1; else qa=0; fi
	"$@"
	if [ $qa = 1 ] && quiet; then qa=1; else qa=0; fi
	echo "quiet=$qa" | tee -a "$tmp/quiet.log"
}

# quiet_pick: lines "FIGURE quiet=0|1" in, the figures of the quiet ones out
# (all of them when none was quiet; a run that gave no figure, none).
quiet_pick() {
	awk 'NF == 2 { n++; v[n] = $1; q[n] = $2 == "quiet=1"; nq += q[n] }
		END { for (i = 1; i <= n; i++) if (!nq || q[i]) print v[i] }'
}

# quiet_summary: how the runs went.
quiet_summary() {
	quiet_best=$(quiet_median <"$tmp/quiet.fast")
	n=$(grep -c '^quiet=' "$tmp/quiet.log" 2>/dev/null); q=$(grep -c '^quiet=1' "$tmp/quiet.log" 2>/dev/null)
	echo "quiet runs: ${q:-0} of ${n:-0} (every CPU fast before and after: $B/phase-probe's slowest CPU within"
	echo "  1.15x of the fastest CPU's median speed, $quiet_best ns per iteration; each run waited at most"
	echo "  $QUIET_WAIT s for it, $QUIET_TOTAL s in all; waited $(quiet_waited) s)"
}

# The fast speed, learnt over a second before anything is measured.
for _ in 1 2 3 4 5 6 7 8 9 10; do quiet || :; done
