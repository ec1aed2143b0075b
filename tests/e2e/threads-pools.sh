# threads-pools.sh - GLib's GThreadPool and libuv's threadpool, built at test
# time from tests/e2e/data/gpool.c and uvpool.c (libglib2.0-dev and
# libuv1-dev are test dependencies): the exact number of tasks pushed and
# run, the pool size, and queue waits consistent with the known delays.
#   gpool: 2 threads, 20 tasks of 50 ms pushed at once: task k waits about
#     floor(k/2) * 50 ms: longest about 450 ms, sum about 4500 ms (at least:
#     a loaded machine stretches the sleeps; the upper bound comes from the
#     measured run times).
#   uvpool: UV_THREADPOOL_SIZE=2, 12 requests of 50 ms: longest wait about
#     250 ms, sum about 1500 ms.
. tests/e2e/lib.sh
pkg-config --exists glib-2.0 || fail "glib-2.0 is not installed (libglib2.0-dev, a test dependency: make deps)"
pkg-config --exists libuv || fail "libuv is not installed (libuv1-dev, a test dependency: make deps)"
# Under ThreadSanitizer: GLib synchronizes its pools with raw futexes that an
# uninstrumented libglib hides from TSan, which then reports races between
# a push and the pool's own teardown: suppressed for libglib only.
case ${HS_SAN_RT:-} in
*tsan*)
	printf 'race:libglib-2.0.so\n' >"$HS_TMP/tsan.supp"
	export TSAN_OPTIONS="${TSAN_OPTIONS:-}:suppressions=$HS_TMP/tsan.supp" ;;
esac
cc -O2 -g tests/e2e/data/gpool.c -o "$HS_TMP/gpool" $(pkg-config --cflags --libs glib-2.0) ||
	fail "cannot build tests/e2e/data/gpool.c"
cc -O2 -g tests/e2e/data/uvpool.c -o "$HS_TMP/uvpool" $(pkg-config --cflags --libs libuv) ||
	fail "cannot build tests/e2e/data/uvpool.c"

# check_pool NAME LINE KIND FUNC PUSHED SIZE MAXWAIT_MS SUMWAIT_MS
check_pool() {
	local name=$1 line=$2 kind=$3 func=$4 pushed=$5 size=$6 maxw=$7 sumw=$8 pid fig
	wait_for 20 grep -q "$line" "$HS_TMP/daemon.log"
	pid=$(once_json | jq -e "[.targets[] | select(.name == \"$name\")][0].pid") || fail "no $name target"
	wait_for 10 jq_once ".threading.pools[0].done == $pushed" --target "$pid"
	fig=$(once_json --target "$pid" | jq -r '.threading.pools[0] |
		"\(.kind) \(if .func.name == "" then "-" else .func.name end) \(.pushed) \(.done) \(.size) \(.workers) \(.wait_max_ns / 1e6) \(.wait_ns / 1e6) \(.run_max_ns / 1e6) \(.run_ns / 1e6)"')
	echo "$name: kind func pushed done size workers max-wait-ms sum-wait-ms max-run-ms sum-run-ms: $fig"
	set -- $fig
	[ "$1" = "$kind" ] || fail "$name: pool kind $1, expected $kind"
	[ "$2" = "$func" ] || fail "$name: task function '$2', expected $func"
	[ "$3" = "$pushed" ] && [ "$4" = "$pushed" ] || fail "$name: pushed $3 done $4, expected $pushed"
	[ "$5" = "$size" ] || fail "$name: size $5, expected $size"
	[ "$6" = "$size" ] || fail "$name: $6 live workers, expected $size"
	# Sleeps only get longer on a loaded machine: the nominal waits are lower
	# bounds; the upper bounds follow from the measured run times (2 workers
	# drain the queue: the last task waits at most about half of all runs).
	awk -v m="$7" -v s="$8" -v M="$maxw" -v S="$sumw" -v r="${10}" -v n="$pushed" 'BEGIN {
		exit !(m >= M * 0.9 && m <= r * 0.6 + 50 && s >= S * 0.9 && s <= m * n) }' ||
		fail "$name: queue waits max $7 ms sum $8 ms (runs $10 ms), expected about $maxw and $sumw"
	touch "$HS_TMP/go"
	wait_for 20 jq_once ".targets[] | select(.pid == $pid) | .state == \"exited\""
	rm -f "$HS_TMP/go"
}

start_daemon run -- "$HS_TMP/gpool" "$HS_TMP/go"
check_pool gpool "gpool: pushed 20" gthreadpool gpool_task 20 2 450 4500
once_json --target "$(once_json | jq '[.targets[] | select(.name == "gpool")][0].pid')" |
	jq -e '.threading.pools[0].freed' >/dev/null || fail "gpool: g_thread_pool_free not seen"
stop_daemon
UV_THREADPOOL_SIZE=2 start_daemon run -- "$HS_TMP/uvpool" "$HS_TMP/go"
check_pool uvpool "uvpool: queued 12 done 12" libuv - 12 2 250 1500
stop_daemon
echo "ok"
