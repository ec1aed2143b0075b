# sites.sh - hook-site statistics end to end: the hook
# engine on a plain `cc -O2 -g` program (tests/e2e/data/plain.c) at level 4
# reports active patch sites and skipped ones with their reasons ("short":
# the crt stubs); level 1 switches most off (disabled grows, active shrinks);
# the targets reply and the dump report print them; the TUI's status bar
# shows "sites N on/N off/N skipped" and `:sites` lists the reasons.
# An -finstrument-functions app reports its "finstrument" back-end.
. tests/e2e/lib.sh

command -v tmux >/dev/null || fail "tmux is not installed (run 'make deps')"
command -v cc >/dev/null || fail "no C compiler (cc) to build tests/e2e/data/plain.c"
TM_SOCK="hookscope-sites-$$"
tm() { tmux -L "$TM_SOCK" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; hs_cleanup' EXIT
screen() { tm capture-pane -p -t "$1"; }
cmd() { "$O/hookscope" --cmd "$*" "ws://127.0.0.1:$HS_PORT"; }
sites() { once_json | jq -c '.sites'; }

cc -O2 -g -pthread -o "$HS_TMP/plain" tests/e2e/data/plain.c ||
	fail "cannot build tests/e2e/data/plain.c with cc -O2 -g"

export HOOKSCOPE_LEVEL=4
start_daemon run -- "$HS_TMP/plain" 60

# 1. level 4: active patch sites, skipped ones with reasons that add up.
wait_for 20 jq_once '.sites.patch.active > 5'
once_json >"$HS_TMP/f4.json" || fail "no frame"
jq -e '.sites.patch | .skipped > 0 and .reasons.short > 0
	and ([.reasons[]] | add) == .skipped and .disabled == 0' "$HS_TMP/f4.json" >/dev/null ||
	fail "level 4: bad patch sites: $(jq -c .sites "$HS_TMP/f4.json")"
on4=$(jq '.sites.patch.active' "$HS_TMP/f4.json")
all4=$(jq '[.sites[].active] | add' "$HS_TMP/f4.json")   # the status bar sums back-ends
echo "ok: level 4: $(jq -c .sites "$HS_TMP/f4.json")"

# 2. level 1: only main (no HOOKSCOPE_FUNCS): disabled grows, the sum stays.
cmd level 1 >/dev/null || fail "level 1 was refused"
wait_for 10 jq_once ".sites.patch.disabled > 0 and .sites.patch.active < $on4"
once_json >"$HS_TMP/f1.json" || fail "no frame"
jq -e --argjson on4 "$on4" '.sites.patch | .active + .disabled == $on4' "$HS_TMP/f1.json" \
	>/dev/null || fail "level 1: active + disabled changed: $(jq -c .sites "$HS_TMP/f1.json")"
echo "ok: level 1: $(jq -c .sites "$HS_TMP/f1.json")"

# 3. the targets reply and the dump report.
cmd targets | grep -q "sites: patch [0-9]* on/[0-9]* off/[0-9]* skipped (.*short [0-9]" ||
	fail "targets does not show the sites: $(cmd targets)"
cmd dump >/dev/null || fail "dump was refused"
grep -q "^sites:     patch [0-9]* on/" "$HS_TMP"/reports/hookscope-*.txt ||
	fail "the report header has no sites line: $(head -20 "$HS_TMP"/reports/hookscope-*.txt)"

# 4. the TUI: status bar figure, :sites overlay with the reasons.
cmd level 4 >/dev/null || fail "level 4 was refused"
tm new-session -d -s hs -x 160 -y 40 \
	"env LANG=C.UTF-8 LC_ALL= HOOKSCOPE_STATE_DIR='$HS_TMP/state' '$O/hookscope' \
	ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/tui.err'; exec sleep 600"
end=$(( $(date +%s) + 15 ))
until screen hs | head -1 | grep -q "sites $all4 on/0 off/[1-9][0-9]* skipped"; do
	[ "$(date +%s)" -lt "$end" ] || fail "status bar shows no sites figure: $(screen hs | head -2)"
	sleep 0.1
done
tm send-keys -t hs ':sites' Enter
end=$(( $(date +%s) + 5 ))
until screen hs | grep -q "short  *[1-9]"; do
	[ "$(date +%s)" -lt "$end" ] || fail ":sites shows no reasons: $(screen hs)"
	sleep 0.1
done
screen hs | grep -q "patch: $on4 active" || fail ":sites overlay lacks the counts: $(screen hs)"
echo "ok: TUI: $(screen hs | head -1 | grep -o 'sites [^│|]*')"
tm kill-server 2>/dev/null
stop_daemon

# 5. the -finstrument-functions path: its functions are "finstrument" sites
# (the engine leaves an instrumented module to the timing hooks), its calls
# into libc "import" sites, on from level 3.  Level 1 keeps main and the
# thread start routine the threads collector saw (worker_main).
export HOOKSCOPE_LEVEL=2
start_daemon run -- "$O/apps/demo"
wait_for 20 jq_once '.sites.finstrument.active > 0 and .sites.patch == null and .sites.import.active == 0 and .sites.import.disabled > 0'
cmd level 3 >/dev/null || fail "level 3 was refused"
wait_for 10 jq_once '.sites.import.active > 0'
cmd level 1 >/dev/null || fail "level 1 was refused"
# (main and the worker's start routine; under a sanitizer runtime the start
# routine is not seen: lib.sh, HS_SAN_THREADS)
on1=2
[ -z "$HS_SAN_THREADS" ] || on1=1
wait_for 10 jq_once ".sites.finstrument.active == $on1 and .sites.finstrument.disabled > 0 and .sites.import.active == 0"
cmd level 0 >/dev/null || fail "level 0 was refused"
wait_for 10 jq_once '.sites.finstrument.active == 0 and .sites.finstrument.disabled > 0'
echo "ok: finstrument: $(sites)"
