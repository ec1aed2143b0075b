#!/bin/sh
# daemon.sh - the daemon's costs and the end-to-end latency (part of
# `make bench`; doc/performance.md):
#   1. hookscoped at --rate 10 with one synthetic agent of 10000 functions
#      (tests/tools/hs-fakeagent, 5 reports a second; a real agent sends
#      only the functions that changed: 500 of them, and the worst case,
#      all of them) and 4 clients: CPU share of one core and memory (VmRSS,
#      VmHWM) over $HS_BENCH_SECONDS (default 30) after a 5 s warm-up.
#   2. latency from an event in a target to a client: tests/apps/faulty
#      calls work() and prints "tick N" every 37 ms (out of phase with the
#      frames), each line stamped on arrival by hs-linestamp
#      (CLOCK_MONOTONIC); a client's frames are stamped the same way; the
#      latency of tick N is the first frame whose work count reaches N minus
#      the tick's stamp.  p50, p99, max, at the agent's default report
#      period (200 ms) and at 50 ms.
#   3. TUI redraw time (tests/bench/tui-redraw.c) in a 200x50 tmux pane.
# Each with the command that reproduces it.  Goals (reported, not
# asserted): daemon < 2% of a core and < 32 MiB; p99 < 200 ms.
O=${O:-build}
S=${HS_BENCH_SECONDS:-30}
tmp=$(mktemp -d /tmp/hookscope-bench-d.XXXXXX) || exit 1
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; tmux -L "hsb$$" kill-server 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
die() { echo "bench: $*" >&2; exit 1; }
port() { echo $(( 20000 + $$ % 20000 + $1 )); }
for t in hookscoped tools/hs-fakeagent tools/hs-wsclient tools/hs-linestamp apps/faulty bench/tui-redraw; do
	[ -x "$O/$t" ] || die "$O/$t is missing (run 'make bench')"
done
command -v tmux >/dev/null || die "tmux is not installed (mk/deps.sh)"
hz=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
kb() { awk -v k="$2" '$1 == k":" {print $2}' "/proc/$1/status"; }

load() {   # LABEL FAKEAGENT-OPTIONS...: the daemon's CPU and memory
	label=$1; shift
	P=$(port 1)
	rm -f "$tmp/a.sock"
	"$O/hookscoped" --rate 10 --port "$P" --socket "$tmp/a.sock" --report-dir "$tmp" >"$tmp/d.log" 2>&1 &
	d=$!; pids="$pids $d"
	sleep 0.5
	"$O/tools/hs-fakeagent" --socket "$tmp/a.sock" --funcs 10000 --report-hz 5 "$@" >/dev/null 2>&1 &
	a=$!; pids="$pids $a"
	for i in 1 2 3 4; do
		"$O/tools/hs-wsclient" -p "$P" -n 100000000 -t $((S + 20)) >/dev/null 2>&1 &
		pids="$pids $!"
	done
	sleep 5
	c0=$(cpu_ticks $d); t0=$(date +%s%N)
	sleep "$S"
	c1=$(cpu_ticks $d); t1=$(date +%s%N)
	rss=$(kb $d VmRSS); hwm=$(kb $d VmHWM)
	awk -v c=$((c1 - c0)) -v hz="$hz" -v ns=$((t1 - t0)) -v rss="$rss" -v hwm="$hwm" -v l="$label" 'BEGIN {
		pct = 100 * c / hz / (ns / 1e9)
		printf "  %s: CPU %.2f%% of one core (goal < 2%%: %s); VmRSS %.1f MiB, VmHWM %.1f MiB (goal < 32 MiB: %s)\n",
		    l, pct, pct < 2 ? "met" : "NOT met", rss / 1024, hwm / 1024, hwm < 32768 ? "met" : "NOT met" }'
	echo "    reproduce: $O/hookscoped --rate 10 --socket /tmp/b.sock & $O/tools/hs-fakeagent --socket /tmp/b.sock --funcs 10000 --report-hz 5 $* &"
	echo "      4x $O/tools/hs-wsclient -n 100000000 -t 60 >/dev/null &  then /proc/PID/stat fields 14+15 and VmHWM"
	kill $d $a; wait $d 2>/dev/null
}
echo
echo "daemon at --rate 10 (frames/s per client), 1 agent of 10000 functions reporting 5 times/s, 4 clients, ${S} s:"
load "500 of the 10000 change per report (--changing 500)" --changing 500
load "all 10000 change in every report (worst case)"

latency() {   # INTERVAL_MS
	P=$(port 2)
	rm -f "$tmp/b.sock"
	"$O/hookscoped" --rate 10 --port "$P" --socket "$tmp/b.sock" --report-dir "$tmp" >"$tmp/d2.log" 2>&1 &
	d=$!; pids="$pids $d"
	sleep 0.5
	(HOOKSCOPE_SOCKET="$tmp/b.sock" HOOKSCOPE_LEVEL=4 HOOKSCOPE_INTERVAL_MS=$1 LD_PRELOAD="$(cd "$O" && pwd)/libhookscope.so" \
		"$O/apps/faulty" tick 37 2>/dev/null | "$O/tools/hs-linestamp" >"$tmp/ticks") 2>/dev/null &
	sleep 1
	"$O/tools/hs-wsclient" -p "$P" -n $((S * 10)) -t $((S + 10)) 'cmd top 20' | "$O/tools/hs-linestamp" >"$tmp/frames"
	pkill -f "$O/apps/faulty tick 37" 2>/dev/null
	kill $d; wait $d 2>/dev/null
	sed -n 's/^\([0-9]*\) .*"name":"work","module":"[^"]*","addr":[0-9]*,"calls":\([0-9]*\).*/F \1 \2/p' "$tmp/frames" >"$tmp/ev"
	sed -n 's/^\([0-9]*\) tick \([0-9]*\)$/T \1 \2/p' "$tmp/ticks" >>"$tmp/ev"
	awk 'BEGIN { nf = 0; maxn = 0 }
	     $1 == "T" { t[$3] = $2; if ($3 > maxn) maxn = $3 }
	     $1 == "F" { f[nf] = $2; c[nf] = $3; nf++ }
	     END {
		k = 0
		for (i = 1; i <= maxn; i++) {
			if (!(i in t) || t[i] < f[0]) continue   # before the client was there
			while (k < nf && (c[k] < i || f[k] < t[i])) k++
			if (k >= nf) break
			printf "%.1f\n", (f[k] - t[i]) / 1e6
		}
	     }' "$tmp/ev" | sort -n >"$tmp/lat"
	awk '{ v[NR] = $1 }
	     END {
		if (NR == 0) { print "  no samples"; exit 1 }
		p99 = v[int(NR * 0.99) + 1]; if (int(NR * 0.99) + 1 > NR) p99 = v[NR]
		ok = "NOT met"; if (p99 < 200) ok = "met"
		printf "  %d events: p50 %.0f ms, p99 %.0f ms, max %.0f ms (goal p99 < 200 ms: %s)\n",
		    NR, v[int(NR * 0.5) + 1], p99, v[NR], ok
	     }' "$tmp/lat"
	[ -n "${HS_BENCH_KEEP:-}" ] && cp "$tmp/lat" "$tmp/ev" /tmp/
}
echo
echo "latency, event in the target -> frame at a client, --rate 10, ${S} s:"
echo " agent report period 100 ms (the default):"
latency 100
echo " agent report period 200 ms (HOOKSCOPE_INTERVAL_MS=200):"
latency 200
echo "  reproduce: tests/bench/daemon.sh (HS_BENCH_SECONDS=$S)"

echo
echo "TUI redraw (tui_screen_draw of a 1000-row frame, the rows changing, in a 200x50 tmux pane):"
tmux -L "hsb$$" -f /dev/null new-session -d -x 200 -y 50 \
	"TERM=tmux-256color $O/bench/tui-redraw 2000 >/dev/tty 2>$tmp/redraw; echo done >>$tmp/redraw.done"
i=0
while [ ! -f "$tmp/redraw.done" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
sed 's/^/  /' "$tmp/redraw"
echo "  reproduce: in a terminal, $O/bench/tui-redraw 2000"
