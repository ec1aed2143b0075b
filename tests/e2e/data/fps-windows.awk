# fps-windows.awk - a program's own "N frames in 5.0 seconds = X FPS" lines
# against hookscope's frame history.  Input: three such lines, each stamped
# with the monotonic time (hs-linestamp; the clock the agent stamps frames
# with); -v json=STREAM (one fps stream as the JSON snapshot has it),
# -v name=LABEL.  Window k runs from line k to line k+1 (k = 1, 2):
# hookscope's frames in it come from its 100 ms bins (the two edge bins
# counted pro rata), divided by the time between the lines.  Prints both
# rates per window; exits 1 when one differs from the program's by more
# than 2%.
function count_before(t,   i, lo, c) {   # frames presented before time t
	c = 0
	for (i = 0; i < nb; i++) {
		lo = end - (nb - i) * bin
		if (lo + bin <= t) c += b[i]
		else if (lo < t) c += b[i] * (t - lo) / bin
	}
	return c
}
BEGIN {
	match(json, /"bins_end_ns":[0-9]+/); end = substr(json, RSTART + 14, RLENGTH - 14) + 0
	match(json, /"bin_ms":[0-9]+/); bin = substr(json, RSTART + 9, RLENGTH - 9) * 1000000
	match(json, /"bins":\[[0-9,]*\]/); s = substr(json, RSTART + 8, RLENGTH - 9)
	nb = split(s, b, ","); for (i = 1; i <= nb; i++) b[i - 1] = b[i] + 0
	bad = 0
}
{ t[NR] = $1 + 0; n[NR] = $2 + 0; fps[NR] = $(NF - 1) + 0 }
END {
	if (NR < 3 || nb == 0 || bin == 0) { print name ": missing data" > "/dev/stderr"; exit 1 }
	for (k = 2; k <= 3; k++) {
		ours = (count_before(t[k]) - count_before(t[k - 1])) * 1e9 / (t[k] - t[k - 1])
		diff = (ours - fps[k]) / fps[k] * 100
		printf "%s window %d: program %d frames = %.3f FPS, hookscope %.3f FPS (%+.3f%%)\n",
			name, k - 1, n[k], fps[k], ours, diff
		if (diff > 2 || diff < -2) bad = 1
	}
	exit bad
}
