# budget-phase.sh - the overhead budget catches a program's change of phase
# within a few milliseconds of its CPU, even after a quiet spell has let the
# budget's ticks back off: tests/apps/phases (plain cc -O2 -g: the hook
# engine) at level 4 alternates 600 ms of CPU with no hooked call and 200 ms
# in a group of ten tiny functions new to the budget (far over it while
# timed), four times.  For each hot spell, the first decision that changes
# modes (the agent's debug log gives the process's CPU time of each) comes
# within 35 ms of the process's CPU after the spell began (the time the
# program printed, same clock).  Without the peek between backed-off ticks a
# decision may wait a whole backed-off tick (80 ms).
. tests/e2e/lib.sh

cc_prog tests/apps/phases/phases.c
export HOOKSCOPE_LEVEL=4 HOOKSCOPE_DEBUG=1
start_daemon run -- "$HS_TMP/phases" 4 600 200
wait_for 120 jq_once '.targets[0].state == "exited"'
stop_daemon

grep -E 'phases: group|budget: .*changed mode' "$HS_TMP/daemon.log" >"$HS_TMP/phase.log"
awk '
	/phases: group/ {
		if (open_g != "") { print "no decision during the spell of group " open_g; bad = 1 }
		g = $3; at[g] = $6 + 0; n++; open_g = g; next
	}
	/changed mode/ && open_g != "" {
		if (match($0, /at [0-9.]+ ms of the process/)) {
			cpu = substr($0, RSTART + 3, RLENGTH - 3) + 0
			d = cpu - at[open_g]
			printf "group %s: %.1f ms\n", open_g, d
			if (d > 35) bad = 1
			open_g = ""
		}
	}
	END {
		if (n != 4) { print "the program printed " n " hot spells, not 4"; bad = 1 }
		if (open_g != "") { print "no decision after group " open_g " began"; bad = 1 }
		exit bad
	}' "$HS_TMP/phase.log" >"$HS_TMP/delays" || fail "a change of phase was caught late (over 35 ms of CPU):
$(cat "$HS_TMP/delays")
the log:
$(cat "$HS_TMP/phase.log")"
echo "ok: first decision after each hot spell began, in ms of the process's CPU: $(awk '{ printf "%s%s", sep, $3; sep = ", " }' "$HS_TMP/delays")"
