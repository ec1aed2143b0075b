# engine-toggle.sh - the arm64 hook engine under live level changes, on
# tests/e2e/data/nop.c built with $HS_CC -O2 $HS_CFLAGS (relocated prologues:
# arm64 entries are patched with a 4-byte B; with -fpatchable-function-entry
# the entry NOPs become that B and back, live):
#   1. 4 threads call known functions in rounds while the level is toggled
#      0 <-> 4 1000 times through the daemon (hs-wsclient, one connection):
#      every switch store and the stubs under fire, no crash;
#   2. left at 4: after a reset, one final round of known counts is counted
#      exactly (4 threads x 1000 st_a, 300 st_b, 77 ex_c).
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

# 1. 1000 toggles, one websocket connection, while the threads run.
set --
for i in $(seq 500); do set -- "$@" "cmd level 0" "cmd level 4"; done
t0=$(date +%s)
"$O/tools/hs-wsclient" -p "$HS_PORT" -t 120 --replies --no-frames "$@" >"$HS_TMP/toggle.out" ||
	fail "the 1000 level commands did not all get replies (rc $?): $(tail -3 "$HS_TMP/toggle.out")"
ok=$(grep -c '"ok":true' "$HS_TMP/toggle.out")
[ "$ok" -eq 1000 ] || fail "$ok of 1000 level commands succeeded: $(grep -v '"ok":true' "$HS_TMP/toggle.out" | head -3)"
applied() { [ "$(grep -c 'hook: level [0-4]:' "$log")" -ge 1001 ]; }
wait_for 120 applied
t1=$(date +%s)
kill -0 "$DAEMON_PID" || fail "hookscoped died"
jq_once '.targets[0].state == "live" and .targets[0].level == 4' >/dev/null ||
	fail "the target is not live at level 4 after the toggles: $(once_json | jq -c .targets)"

# 2. park the threads, reset, one final round.
touch "$HS_TMP/run/pause"
wait_for 30 test -e "$HS_TMP/run/parked"
"$O/hookscope" --cmd reset "ws://127.0.0.1:$HS_PORT" >/dev/null || fail "reset was refused"
wait_for 30 grep -q ']: reset$' "$log"
grep 'hook: level [0-4]:' "$log" | tail -1 | grep -q 'level 4:' || fail "the last level applied is not 4"
touch "$HS_TMP/run/go"
wait_for 60 test -e "$HS_TMP/run/done"
exact() {
	once_json --top 100 >"$HS_TMP/f.json" || return 1
	jq -e '[.funcs[] | {(.name): .calls}] | add | .st_a == 4000 and .st_b == 1200 and .ex_c == 308' \
		"$HS_TMP/f.json" >/dev/null
}
wait_for 20 exact ||
	fail "final round: counts are not exact: $(jq -c '[.funcs[] | {(.name): .calls}] | add' "$HS_TMP/f.json")"
kill -0 "$DAEMON_PID" || fail "hookscoped died"
grep -qiE 'segmentation|illegal instruction|core dumped|signal [0-9]' "$log" && fail "the target crashed: $(tail -5 "$log")"
stop_daemon
echo "ok: $CC ${HS_CFLAGS:-} -O2: 1000 live toggles in $((t1 - t0)) s with 4 threads calling, exact counts after the last one"
