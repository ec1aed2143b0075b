# engine-toggle.sh - the arm64 hook engine under live level changes, on
# tests/e2e/data/nop.c built with $HS_CC -O2 $HS_CFLAGS (relocated prologues:
# arm64 entries are patched with a 4-byte B; with -fpatchable-function-entry
# the entry NOPs become that B and back, live):
#   1. 4 threads call known functions in rounds while the level is toggled
#      0 <-> 4 1000 times through the daemon (hs-wsclient, one connection):
#      every switch store and the stubs under fire, no crash;
#   2. left at 4: after a reset, one final round of known counts is counted
#      exactly (4 threads x 1000 st_a, 300 st_b, 77 ex_c).
# With HOOKSCOPE_A64_FAR=1 (tests/arm64/engine-far.sh) every relocated site
# must have taken the 16-byte far entry (the patching log and the sites
# record's patch-far back-end say how many); without it, none (the region
# is in reach of the functions, even in a module larger than that reach:
# tests/arm64/engine-big.sh).
. tests/e2e/lib.sh

CC=${HS_CC:-cc}
$CC -O2 -g -pthread ${HS_CFLAGS:-} -o "$HS_TMP/nop" tests/e2e/data/nop.c ||
	fail "cannot build tests/e2e/data/nop.c with $CC -O2 ${HS_CFLAGS:-}"
mkdir -p "$HS_TMP/run"
log=$HS_TMP/daemon.log

export HOOKSCOPE_LEVEL=4 HOOKSCOPE_DEBUG=1
start_daemon --budget off run -- "$HS_TMP/nop" "$HS_TMP/run"
wait_for 30 jq_once '.funcs[] | select(.name == "st_a" and .calls > 1000)' --top 100
case "${HS_CFLAGS:-}" in
*-fpatchable-function-entry*)   # the compiler's entry NOPs, swapped live with B
	grep -q 'functions patched in .*: 0 relocated prologues, [1-9][0-9]* NOP sites' "$log" ||
		fail "the entry NOPs were not used: $(grep 'hook:' "$log" | head -5)" ;;
*)
	grep -q 'functions patched in .*: [1-9][0-9]* relocated prologues' "$log" ||
		fail "no relocated prologue: $(grep 'hook:' "$log" | head -5)" ;;
esac
FAR=
line=$(grep -m1 'functions patched in' "$log")
echo "patching: $line"
# its library calls get import sites, near the module or anywhere
echo "$line" | grep -q ', [1-9][0-9]* import sites' || fail "no import site: $line"
if [ "${HOOKSCOPE_A64_FAR:-}" = 1 ]; then
	rel=$(echo "$line" | sed -n 's/.*: \([0-9]*\) relocated prologues.*/\1/p')
	far=$(echo "$line" | sed -n 's/.*; \([0-9]*\) of the relocated with the far entry.*/\1/p')
	[ -n "$rel" ] && [ "$rel" -gt 0 ] && [ "$far" = "$rel" ] ||
		fail "not every relocated site took the far entry: $line"
	wait_for 30 jq_once ".sites[\"patch-far\"].active == $far and .sites.patch.active == 0 and
		.sites.patch.disabled == 0"
	FAR=" (all $far relocated sites with the 16-byte far entry)"
elif grep -q 'with the far entry' "$log"; then
	fail "far entries where a B reaches: $(grep -m1 'functions patched in' "$log")"
fi

# 1-2. 1000 toggles while the threads run, then a final round counted exactly
# (bounds for qemu's speed).
nop_toggles 120
grep -qiE 'segmentation|illegal instruction|core dumped|signal [0-9]' "$log" && fail "the target crashed: $(tail -5 "$log")"
stop_daemon
echo "ok: $CC ${HS_CFLAGS:-} -O2$FAR: 1000 live toggles in $TOGGLE_SECS s with 4 threads calling, exact counts after the last one"
