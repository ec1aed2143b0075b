// throw.cc - target of tests/e2e/engine-unwind.sh, built at test time with
// plain `c++ -O2 -g`: C++ exceptions and backtrace() through functions the
// hook engine times (their return addresses point at its trampoline).
//   throw N HOLD_S: N rounds of catcher -> mid -> thrower (throws), caught in
//   catcher, then N rounds of rethrower (catches and rethrows, caught in
//   catcher2); prints "bt_depth=D" from a backtrace() three timed calls deep
//   and "done"; then stays alive HOLD_S seconds (for the daemon to read).
#include <execinfo.h>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <stdexcept>

#define NOIPA __attribute__((noipa))

volatile long sink;

NOIPA static void thrower(long i) { sink += i; if (i >= 0) throw std::runtime_error("x"); }
NOIPA static void mid(long i) { sink -= i; thrower(i); sink += 1; }
NOIPA static long catcher(long i)
{
	try {
		mid(i);
	} catch (const std::exception &) {
		return 1;
	}
	return 0;
}
NOIPA static void rethrower(long i)
{
	try {
		thrower(i);
	} catch (...) {
		sink += 2;
		throw;
	}
}
NOIPA static long catcher2(long i)
{
	try {
		rethrower(i);
	} catch (const std::exception &) {
		return 1;
	}
	return 0;
}
NOIPA static int bt_leaf(void) { void *b[64]; return backtrace(b, 64); }
NOIPA static int bt_mid(void) { sink += 1; return bt_leaf() + (int)(sink & 0); }
NOIPA static int bt_top(void) { sink += 1; return bt_mid() + (int)(sink & 0); }
NOIPA static void finish(void) { sink += 3; }

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, caught = 0;
	int hold = argc > 2 ? atoi(argv[2]) : 0;

	for (long i = 0; i < n; i++)
		caught += catcher(i);
	for (long i = 0; i < n; i++)
		caught += catcher2(i);
	finish();
	printf("caught=%ld bt_depth=%d\n", caught, bt_top());
	printf("done\n");
	fflush(stdout);
	for (int s = 0; s < hold * 10; s++) {
		struct timespec t = { 0, 100000000 };
		nanosleep(&t, nullptr);
	}
	return 0;
}
