# budget-sleepers.sh - watching a program does not end its sleeps early.
# The budget's sampling windows write relocated entries with the other
# threads stopped, and the stop signal ended a sleeping thread's usleep,
# nanosleep, poll, select, epoll_wait or sigsuspend with EINTR (signal(7): never
# restarted after a handler): Debian's python3 (tests/e2e/data/sleepers.py)
# saw about one EINTR per window.  Threads blocked in a system call are left
# running now, the entries written so that one waking meanwhile traps.
# Level 2, the default budget, under a daemon: at least two windows, written
# with threads left in system calls, and no sleep of the main thread ended
# early; the same while a thread loads a library over and over (each load
# patched); then six threads waking every 0-2 ms while entries are written
# (level 4): every thread's sum right, status 0.
. tests/e2e/lib.sh
PY=/usr/bin/python3
[ -x "$PY" ] || fail "no $PY (Debian package python3)"
[ -n "$HS_SAN_RT" ] && export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"

start_daemon
export HOOKSCOPE_SOCKET=$HS_SOCK HOOKSCOPE_DEBUG=1

# run LEVEL MODE SECONDS [LIB]: the program preloaded; ends within 60 s with status 0.
run() {
	rm -f "$HS_TMP/rc"
	(HOOKSCOPE_LEVEL=$1 LD_PRELOAD=$HS_PRELOAD "$PY" tests/e2e/data/sleepers.py "$2" "$3" ${4:-} \
		>"$HS_TMP/out" 2>"$HS_TMP/log"; echo $? >"$HS_TMP/rc") &
	wait_until 60 test -s "$HS_TMP/rc" || fail "sleepers.py $2 did not end within 60 s"
	[ "$(cat "$HS_TMP/rc")" = 0 ] ||
		fail "sleepers.py $2 ended with status $(cat "$HS_TMP/rc"): $(tail -3 "$HS_TMP/log")"
}
left() { grep -c "threads left in system calls" "$HS_TMP/log"; }

run 2 sleep 6
windows=$(grep -c "budget: a window" "$HS_TMP/log")
[ "$windows" -ge 2 ] || fail "only $windows sampling windows in 6 s (the budget demoted nothing?)"
read -r _ calls _ eintr _ early <"$HS_TMP/out"
[ "${calls:-0}" -ge 60 ] || fail "the main thread slept only ${calls:-0} times: $(cat "$HS_TMP/out")"
[ "$eintr" = 0 ] && [ "$early" = 0 ] ||
	fail "sleeps ended early over $windows windows: $eintr with EINTR, $early suspends before their timer ($calls sleeps)"
[ "$(left)" -ge 1 ] || fail "no entry was written with a thread left sleeping: $(grep 'hook:' "$HS_TMP/log" | tail -3)"
echo "ok: $calls sleeps over $windows windows ($(left) writes left threads sleeping): none ended early"

# A library of the program's own loaded and unloaded over and over in a
# thread: each load patches its sites, the main thread sleeping.  A thread
# that is running when a stop comes is still signalled, and may be just
# entering its sleep: a few in a thousand loads (the build before ended
# nearly every sleep early).
cc -O2 -shared -fPIC -o "$HS_TMP/libdlmod.so" tests/e2e/data/dlmod.c || fail "cannot build dlmod.c"
run 2 load 4 "$HS_TMP/libdlmod.so"
loads=$(grep -c "modules loaded later" "$HS_TMP/log")
read -r _ calls _ eintr _ early <"$HS_TMP/out"
[ "$loads" -ge 100 ] || fail "the library was patched only $loads times"
[ "${calls:-0}" -ge 40 ] && [ $(( (eintr + early) * 20 )) -le "$calls" ] ||
	fail "over $loads loads, of ${calls:-0} sleeps $eintr ended with EINTR and $early suspends before their timer"
echo "ok: $loads loads patched ($(left) with threads left sleeping): $eintr of $calls sleeps with EINTR, $early suspends early"

run 4 wake 6
sums=$(cat "$HS_TMP/out")
echo "$sums" | awk '$1 != "sums" || NF != 7 { exit 1 } { for (i = 2; i <= NF; i++) if ($i <= 0 || $i % 200) exit 1 }' ||
	fail "the waking threads' sums are wrong: $sums"
[ "$(left)" -ge 1 ] || fail "no entry was written with threads left sleeping at level 4"
echo "ok: six threads waking while $(left) writes left them running: $sums"
