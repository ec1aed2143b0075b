# fps-pattern.sh - hookscope_frame_named() at a known pattern (build/apps/frames:
# two threads, each 401 frames on its own stream, 10 ms apart with every 20th
# frame 60 ms: a 250 ms cycle, 80 frames in every second, 20 janks of
# floor((60 - 16.67) / 16.67) = 2 dropped frames each).
#   - live: each stream's FPS of the last second is 80 +- 2 (a frame on the
#     edge of the one-second window may fall either side: one per edge);
#   - at exit: frames 401 and the history bins add up to 401 exactly; jank,
#     dropped and the histogram levels equal what the program measured itself
#     with the same definitions (exact; and the nominal 20 / 40 unless the
#     program saw its own timing disturbed);
#   - with hookscoped --refresh 140 (budget 7.14 ms) every frame is jank, a
#     10 ms frame drops none and a 60 ms frame floor((60 - 7.14) / 7.14) = 7
#     (frame times stay about 3 ms away from every boundary).
. tests/e2e/lib.sh

# Figures of stream $2 of target $1 as "frames jank dropped normal middle high frozen binsum".
stream_figures() {
	once_json --target "$1" | jq -r --arg n "$2" '.fps.streams[] | select(.name == $n) |
		"\(.frames) \(.jank) \(.dropped) \(.levels.normal) \(.levels.middle) \(.levels.high) \(.levels.frozen) \(.bins | add)"'
}
target_exited() { jq_once ".targets[] | select(.pid == $1) | .state == \"exited\""; }

# check_run BUDGET_NS NOMINAL_JANK NOMINAL_DROPPED: the run's exact checks.
check_run() {
	local budget=$1 njank=$2 ndropped=$3 pid name own fig
	wait_for 20 jq_once '.targets[] | select(.name == "frames")'
	pid=$(once_json | jq -e '[.targets[] | select(.name == "frames")][0].pid') || fail "no frames target"
	wait_for 30 target_exited "$pid"
	for name in t0 t1; do
		own=$(grep "^frames: $name frames" "$HS_TMP/daemon.log" | tail -n 1)
		[ -n "$own" ] ||
			fail "the frames program printed nothing for $name"
		fig=$(stream_figures "$pid" "$name")
		[ -n "$fig" ] || fail "no stream $name"
		set -- $fig
		echo "budget ${budget} ns, $name: hookscope frames $1 jank $2 dropped $3 levels $4/$5/$6/$7 bins $8; program: ${own#frames: }"
		[ "$1" = 401 ] && [ "$8" = 401 ] || fail "$name: frames $1, bins add up to $8 (expected 401 and 401)"
		[ $(( $4 + $5 + $6 + $7 )) = 400 ] || fail "$name: levels do not add up to 400 frame times"
		[ $(( $5 + $6 + $7 )) = "$2" ] || fail "$name: levels over the budget ($5+$6+$7) differ from jank $2"
		echo "$own" | grep -q " jank $2 dropped $3 " ||
			fail "$name: hookscope says jank $2 dropped $3, the program measured: $own"
		echo "$own" | grep -q " jank $njank dropped $ndropped " ||
			echo "note: $name: the program's own timing was disturbed (nominal jank $njank dropped $ndropped): $own"
	done
}

# 1. default budget; live FPS while it runs.
start_daemon run -- "$O/apps/frames" --threads 2
wait_for 20 jq_once '[.fps.streams[] | select(.frames >= 250)] | length == 2'
live=$(once_json | jq -r '[.fps.streams[] | .fps] | join(" ")')
for f in $live; do
	awk -v f="$f" 'BEGIN { exit !(f >= 78 && f <= 82) }' || fail "live FPS $f, expected 80 +- 2"
done
echo "live FPS of the two streams: $live (expected 80 +- 2)"
once_json | jq -e '[.fps.streams[].tid] | unique | length == 2' >/dev/null ||
	fail "the two threads' streams do not have two thread ids"
check_run 16666667 20 40
stop_daemon
: >"$HS_TMP/daemon.log"

# 2. --refresh 140: every 10 ms frame is over the 7.14 ms budget.
start_daemon --refresh 140 run -- "$O/apps/frames" --threads 2 --budget-ns 7142857
check_run 7142857 400 140
jq_once '.fps.budget_ns == 7142857' >/dev/null || fail "the --refresh budget is not in the frames"
echo "ok: pattern figures exact for both streams with both budgets"
