// throw.cc - target of tests/e2e/engine-unwind.sh, built at test time with
// plain `c++ -O2 -g`: C++ exceptions, backtrace(), pthread_exit and
// pthread_cancel through functions the hook engine times (their return
// addresses point at its site blocks).
//   throw N HOLD_S: N rounds of catcher -> mid -> thrower (throws), caught in
//   catcher, then N rounds of rethrower (catches and rethrows, caught in
//   catcher2); prints "bt_depth=D" from a backtrace() three timed calls deep;
//   then a thread that calls pthread_exit three timed calls deep and one
//   cancelled in a nanosleep three timed calls deep, each call holding an
//   object whose destructor the forced unwind must run ("unwound=6"); "done";
//   then stays alive HOLD_S seconds (for the daemon to read).
#include <atomic>
#include <execinfo.h>
#include <pthread.h>
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

static std::atomic<int> unwound;
struct guard { ~guard() { unwound++; } };
NOIPA static void ex_deep2(void) { guard g; sink += 1; pthread_exit((void *)42); }
NOIPA static void ex_deep1(void) { guard g; ex_deep2(); sink += 1; }
NOIPA static void *ex_main(void *) { guard g; ex_deep1(); return nullptr; }
NOIPA static void cn_deep2(void)
{
	guard g;

	for (;;) {
		struct timespec t = { 0, 1000000 };
		nanosleep(&t, nullptr);       // a cancellation point
	}
}
NOIPA static void cn_deep1(void) { guard g; cn_deep2(); sink += 1; }
NOIPA static void *cn_main(void *) { guard g; cn_deep1(); return nullptr; }

// The two forced unwinds: "exit=42 cancelled=1".
static void forced(void)
{
	pthread_t t;
	void *r = nullptr;

	if (pthread_create(&t, nullptr, ex_main, nullptr) != 0 || pthread_join(t, &r) != 0)
		abort();
	printf("exit=%ld ", (long)r);
	if (pthread_create(&t, nullptr, cn_main, nullptr) != 0)
		abort();
	pthread_cancel(t);
	if (pthread_join(t, &r) != 0)
		abort();
	printf("cancelled=%d ", r == PTHREAD_CANCELED);
}

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
	forced();
	printf("unwound=%d\n", unwound.load());
	printf("done\n");
	fflush(stdout);
	for (int s = 0; s < hold * 10; s++) {
		struct timespec t = { 0, 100000000 };
		nanosleep(&t, nullptr);
	}
	return 0;
}
