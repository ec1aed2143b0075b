# engine-nop.sh - the hook engine's compiler-assisted back-end (hook_nop.c)
# on tests/e2e/data/nop.c built here with `clang -O2
# -fpatchable-function-entry=5` (one 5-byte NOP per function entry):
#   1. the module is hooked through its __patchable_function_entries table,
#      chosen automatically (HOOKSCOPE_DEBUG log), none relocated (the one
#      stop is for libgcc_s's unwinder entry points);
#   2. 4 threads call known functions in rounds while the level is toggled
#      0 <-> 4 1000 times through the daemon (hs-wsclient, one connection),
#      live NOP <-> jmp rewrites with the int3 protocol: no crash;
#   3. left at 4: after a reset, one final round of known counts is counted
#      exactly (4 threads x 1000 st_a, 300 st_b, 77 ex_c);
#   4. without a daemon: gcc non-PIE `-pg -mfentry -mnop-mcount
#      -mrecord-mcount` is hooked through __mcount_loc; gcc's
#      -fpatchable-function-entry=5 (five 1-byte NOPs) is refused with the
#      reason and left to prologue relocation; both run to their end.
. tests/e2e/lib.sh

command -v clang >/dev/null ||
	fail "clang is missing: it builds tests/e2e/data/nop.c (apt-get install clang; mk/deps.sh lists it)"
clang -O2 -g -pthread -fpatchable-function-entry=5 -o "$HS_TMP/nop" tests/e2e/data/nop.c ||
	fail "cannot build tests/e2e/data/nop.c with clang -O2 -fpatchable-function-entry=5"
readelf -SW "$HS_TMP/nop" | grep -q __patchable_function_entries ||
	fail "clang emitted no __patchable_function_entries section"
mkdir -p "$HS_TMP/run"
log=$HS_TMP/daemon.log

export HOOKSCOPE_LEVEL=4 HOOKSCOPE_DEBUG=1
# Known counts counted exactly after the toggling: every call timed, the
# overhead budget (which would estimate some) off.
start_daemon --budget off run -- "$HS_TMP/nop" "$HS_TMP/run"
wait_for 20 jq_once '.funcs[] | select(.name == "st_a" and .calls > 1000)' --top 100

# 1. chosen automatically: the table, no relocation, no stop-the-world.
grep -q 'nop: compiler-assisted, [1-9][0-9]* of [0-9]* __patchable_function_entries' "$log" ||
	fail "the compiler-assisted back-end was not chosen: $(grep 'hook:' "$log" | head -5)"
grep -q 'nop: .*relocating prologues' "$log" && fail "the module fell back to relocation"
# (the threads are stopped once, for libgcc_s's unwinder entry points only)
grep -q 'functions patched in .*: 0 relocated prologues, [1-9][0-9]* NOP sites' "$log" ||
	fail "compiler-assisted sites were relocated: $(grep 'functions patched' "$log")"

# 2-3. 1000 toggles while the threads run, then a final round counted exactly.
nop_toggles 60
grep -qiE 'segmentation|trace/breakpoint|core dumped|signal [0-9]' "$log" && fail "the target crashed: $(tail -5 "$log")"
stop_daemon

# 4. the gcc variants, one round each (the control files exist already).
side() {   # name, gcc flags...: build, run once at level 4, leave the log in $HS_TMP/name.log
	local n=$1; shift
	gcc -O2 -g -pthread "$@" -o "$HS_TMP/$n" tests/e2e/data/nop.c || fail "cannot build nop.c with gcc $*"
	mkdir -p "$HS_TMP/$n.d" && touch "$HS_TMP/$n.d/pause" "$HS_TMP/$n.d/go" "$HS_TMP/$n.d/exit"
	# in its own directory: a -pg program writes gmon.out into the current one
	(cd "$HS_TMP/$n.d" && HOOKSCOPE_SOCKET=$HS_TMP/none.sock LD_PRELOAD=$HS_PRELOAD \
		timeout 20 "$HS_TMP/$n" "$HS_TMP/$n.d") >"$HS_TMP/$n.log" 2>&1 || fail "nop.c built with gcc $* failed under the engine: $(tail -3 "$HS_TMP/$n.log")"
}
side mcount -fno-pic -no-pie -pg -mfentry -mnop-mcount -mrecord-mcount
grep -q 'mcount: compiler-assisted, [1-9][0-9]* of [0-9]* __mcount_loc' "$HS_TMP/mcount.log" ||
	fail "gcc -pg -mfentry -mnop-mcount: __mcount_loc not used: $(grep hook: "$HS_TMP/mcount.log")"
side gccpfe -fpatchable-function-entry=5
grep -q 'gccpfe: __patchable_function_entries lists five 1-byte NOPs .*relocating' "$HS_TMP/gccpfe.log" ||
	fail "gcc -fpatchable-function-entry=5 was not refused: $(grep hook: "$HS_TMP/gccpfe.log")"
echo "ok: clang patchable entries hooked through their table (none relocated), 1000 live toggles in" \
	"$TOGGLE_SECS s with 4 threads calling, exact counts after the last one; gcc __mcount_loc used, gcc 1-byte NOPs refused"
