# engine-unwind.sh - C++ exceptions (throw and rethrow), backtrace(),
# pthread_exit and pthread_cancel through functions timed by the hook engine,
# in a program built with plain `c++ -O2 -g` (tests/e2e/data/throw.cc, built
# here).  Their return addresses point at the engine's site blocks, so the
# agent's wrappers of libgcc_s's _Unwind_RaiseException,
# _Unwind_Resume_or_Rethrow, _Unwind_ForcedUnwind and _Unwind_Backtrace must
# put the real ones back first.
#   1. run alone: every exception is caught, backtrace() sees as many frames
#      as without the agent, the forced unwinds of pthread_exit and of a
#      cancellation run every destructor on the way;
#   2. run under hookscoped: the calls that threw are counted exactly, under
#      their demangled names;
#   3. level 1 with HOOKSCOPE_FUNCS globs on demangled names: main and those.
. tests/e2e/lib.sh

command -v c++ >/dev/null || fail "no C++ compiler (c++, package g++) to build tests/e2e/data/throw.cc"
c++ -O2 -g -o "$HS_TMP/throw" tests/e2e/data/throw.cc ||
	fail "cannot build tests/e2e/data/throw.cc with c++ -O2 -g"

# 1. Alone (no daemon: the agent runs on without one).  The reference run
# preloads what the agent needs besides itself (a sanitizer runtime, whose
# backtrace interceptor adds a frame).
base=$(echo "$HS_PRELOAD" | sed 's|[^:]*libhookscope\.so$||; s|:$||')
plain=$(LD_PRELOAD="$base" "$HS_TMP/throw" 1000 0) || fail "throw fails without the agent"
hooked=$(HOOKSCOPE_LEVEL=4 HOOKSCOPE_SOCKET="$HS_TMP/none.sock" \
	LD_PRELOAD="$HS_PRELOAD" "$HS_TMP/throw" 1000 0) ||
	fail "throw fails with the hook engine at level 4 (exit $?): $hooked"
[ "$hooked" = "$plain" ] || fail "with the engine: '$hooked', without: '$plain'"
case $plain in *"caught=2000 "*"exit=42 cancelled=1 unwound=6"*) ;; *) fail "unexpected output: $plain" ;; esac

# 2. Counted through the daemon, the budget off: it could leave these
# functions counted or sampled, and then no exception would unwind through a
# timed frame (and a sampled count is an estimate).
export HOOKSCOPE_LEVEL=4
start_daemon --budget off run -- "$HS_TMP/throw" 1000 30
# (the daemon demangles the C++ names)
counts='[.funcs[] | {(.name): .calls}] | add'
exact="$counts | .[\"thrower(long)\"] == 2000 and .[\"mid(long)\"] == 1000
	and .[\"catcher(long)\"] == 1000 and .[\"rethrower(long)\"] == 1000
	and .[\"catcher2(long)\"] == 1000 and .[\"finish()\"] == 1 and .[\"bt_leaf()\"] == 1"
wait_for 20 jq_once "$counts | .[\"finish()\"] == 1" --top 500
once_json --top 500 | jq -e "$exact" >/dev/null ||
	fail "counts after exceptions: $(once_json --top 500 | jq -c "$counts")"
echo "ok: exceptions, backtrace(), pthread_exit and pthread_cancel through timed calls work;" \
	"$(echo "$plain" | head -2 | tr '\n' ' ')calls exact"
stop_daemon

# 3. Level 1 with a glob on a demangled name: only that function is timed.
export HOOKSCOPE_LEVEL=1 HOOKSCOPE_FUNCS='rethrower(*:finish*'
start_daemon --budget off run -- "$HS_TMP/throw" 1000 30
wait_for 20 jq_once "$counts | .[\"finish()\"] == 1" --top 500
once_json --top 500 | jq -e "$counts | .[\"rethrower(long)\"] == 1000 and .[\"thrower(long)\"] == null
	and .[\"main\"] != null" >/dev/null ||
	fail "level 1 with HOOKSCOPE_FUNCS: $(once_json --top 500 | jq -c "$counts")"
echo "ok: level 1 times main and the functions named by demangled globs only"
