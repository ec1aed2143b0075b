#!/bin/sh
# run.sh - the whole test suite: unit tests (cmocka), then end-to-end tests.
# Each test runs in its own process group, bounded in time; everything it left
# behind is killed.  Sanitizer reports from any process fail the suite.
# Ends with one line "N passed, N failed"; exits non-zero on any failure.
#   O=build sh tests/run.sh [NAME-FILTER]
# ARCH=aarch64 (make test ARCH=aarch64): the arm64 suite under qemu user mode
# instead (tests/arm64/setup.sh): the unit tests and ARM64_E2E.
O=${O:-build}
E2E=$(ls tests/e2e/*.sh | grep -v /lib.sh)
if [ "${ARCH:-}" = aarch64 ]; then
	. tests/arm64/setup.sh
	E2E=$ARM64_E2E
fi
case $O in /*) ;; *) O=$(pwd)/$O ;; esac
export O
filter=${1:-}
per_test_limit=${HS_TEST_TIMEOUT:-240}
logdir=$(mktemp -d /tmp/hookscope-logs.XXXXXX)
san_dir=$logdir/san
mkdir -p "$san_dir"
export ASAN_OPTIONS="log_path=$san_dir/asan:detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="log_path=$san_dir/ubsan:print_stacktrace=1:halt_on_error=1"
export TSAN_OPTIONS="log_path=$san_dir/tsan"
passed=0
failed=0
failures=""

run_one() {   # name, command...
	name=$1; shift
	case $name in *"$filter"*) ;; *) return ;; esac
	log=$logdir/$(echo "$name" | tr '/' '_').log
	start=$(date +%s)
	setsid timeout -k 5 "$per_test_limit" "$@" >"$log" 2>&1 </dev/null &
	pid=$!
	wait $pid
	rc=$?
	kill -KILL -- "-$pid" 2>/dev/null
	secs=$(( $(date +%s) - start ))
	san=$(ls "$san_dir" 2>/dev/null)
	if [ -n "$san" ]; then
		echo "--- sanitizer report during $name ---" >>"$log"
		cat "$san_dir"/* >>"$log"
		rm -f "$san_dir"/*
		rc=99
	fi
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1))
		echo "PASS $name (${secs}s)"
	else
		failed=$((failed + 1))
		failures="$failures $name"
		[ $rc -eq 124 ] && echo "TIMEOUT after ${per_test_limit}s" >>"$log"
		echo "FAIL $name (${secs}s, exit $rc)"
		sed 's/^/    /' "$log" | tail -n 40
	fi
}

for t in "$O"/tests/test-*; do
	[ -x "$t" ] || continue
	run_one "unit/$(basename "$t")" "$t"
done
# A short pass of every fuzz target (make fuzz runs them for longer; native
# only, like the checks).
[ "${ARCH:-}" = aarch64 ] || for t in tests/fuzz/fuzz-*.c; do
	n=$(basename "$t" .c)
	run_one "fuzz/$n" sh tests/fuzz/run.sh --smoke "${n#fuzz-}"
done
# Checks on the source tree (tests/check: layout rules).
[ "${ARCH:-}" = aarch64 ] || for t in tests/check/*.sh; do
	run_one "check/$(basename "$t" .sh)" sh "$t"
done
for t in $E2E; do
	run_one "$(basename "$(dirname "$t")")/$(basename "$t" .sh)" bash "$t"
done

[ -n "$failures" ] && echo "failed:$failures (logs in $logdir)" || rm -rf "$logdir"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ] && [ $passed -gt 0 ]
