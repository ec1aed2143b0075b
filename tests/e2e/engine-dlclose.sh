# engine-dlclose.sh - modules unloaded while the engine runs: a program
# (tests/e2e/data/dlcycle.c) dlopens, calls and dlcloses two different
# plugins in turn, 300 rounds, while the test toggles the level 0 <-> 4
# through the daemon.  The plugins are clang -fpatchable-function-entry=5
# builds (their sites are rewritten on every level change) and plain -O2
# builds (relocated prologues); a new plugin often lands where the previous
# one was.  The engine must forget a closed module's sites before the next
# level change writes code: the program finishes with the same output as
# without the agent, and the plugins' calls were timed (the budget off: it
# would rightly demote plug, a function of a few instructions); and their
# functions keep their names once the other plugin is loaded where they were.
. tests/e2e/lib.sh

command -v clang >/dev/null || fail "clang not found (package clang): needed for the NOP build"
cc -O2 -g -o "$HS_TMP/dlcycle" tests/e2e/data/dlcycle.c || fail "cannot build dlcycle.c"
for k in a b; do
	printf 'long plug_%s_inner(long x) { return x * 3 + 1; }\nlong plug(long x) { return plug_%s_inner(x) + 2; }\n' \
		"$k" "$k" >"$HS_TMP/p$k.c"
done
clang -O2 -shared -fPIC -fpatchable-function-entry=5 -o "$HS_TMP/pa.so" "$HS_TMP/pa.c" ||
	fail "cannot build the NOP plugin"
cc -O2 -shared -fPIC -o "$HS_TMP/pb.so" "$HS_TMP/pb.c" || fail "cannot build the plain plugin"

plain=$("$HS_TMP/dlcycle" 300 "$HS_TMP/pa.so" "$HS_TMP/pb.so") || fail "dlcycle fails without the agent"

# The agent's log (one line per load, unload and level change) explains a
# failure: summarized by dlcycle_log below.
export HOOKSCOPE_LEVEL=4 HOOKSCOPE_DEBUG=1
start_daemon --budget off run -- "$HS_TMP/dlcycle" 300 "$HS_TMP/pa.so" "$HS_TMP/pb.so"
dlcycle_log() {
	grep -v "^sum=" "$HS_TMP/daemon.log" | sed 's/\[[0-9]*\]//' | sort | uniq -c | sort -rn | head -25
	once_json --top 500 | jq -c '[.funcs[] | {name, calls}]'
}
HS_ON_FAIL=dlcycle_log
toggles=0
until grep -q "ended: " "$HS_TMP/daemon.log"; do
	"$O/hookscope" --cmd "level 0" "ws://127.0.0.1:$HS_PORT" >/dev/null 2>&1
	"$O/hookscope" --cmd "level 4" "ws://127.0.0.1:$HS_PORT" >/dev/null 2>&1
	toggles=$((toggles + 2))
	[ $toggles -lt 2000 ] || fail "dlcycle did not finish"
done
grep -q "ended: exit status 0" "$HS_TMP/daemon.log" ||
	fail "dlcycle under the agent failed"
grep -qx "$plain" "$HS_TMP/daemon.log" ||
	fail "output differs from '$plain'"
wait_until 10 jq_once '[.funcs[] | select(.name == "plug") | .calls] | add > 0' --top 500 ||
	fail "the plugins' calls were not timed"
echo "ok: 300 rounds of dlopen/dlclose of a NOP and a plain plugin with $toggles level changes: $plain"
stop_daemon

# 2. Names: the plain plugin, then the NOP one loaded where it was, which
# stays loaded while the agent reports (DLCYCLE_HOLD_MS).  A function timed
# in the closed plugin keeps its own name, not that of whatever the other
# maps at its address (on Debian 12's gcc and clang the plain plugin's plug
# sits where the NOP one has its _fini): every name shown is one of a
# function the program called.
export DLCYCLE_HOLD_MS=500 HOOKSCOPE_DEBUG=0
start_daemon --budget off run -- "$HS_TMP/dlcycle" 1 "$HS_TMP/pb.so" "$HS_TMP/pa.so"
wait_for 20 sh -c "[ \$(grep -c 'ended: exit status 0' '$HS_TMP/daemon.log') -ge 2 ]"
called='["main", "plug", "plug_a_inner", "plug_b_inner", "printf", "strtol", "atol", "getenv", "nanosleep"]'
wait_until 10 jq_once '[.funcs[] | select(.name == "plug") | .calls] | add >= 200' --top 500 ||
	fail "the plugins' calls were not timed: $(once_json --top 500 | jq -c '[.funcs[] | {name, calls}]')"
once_json --top 500 | jq -e --argjson ok "$called" '[.funcs[].name] - $ok == []' >/dev/null ||
	fail "a function of a closed plugin named after another: $(once_json --top 500 |
		jq -c --argjson ok "$called" '[.funcs[] | select([.name] - $ok != []) | {name, calls}]')"
echo "ok: a plugin's functions keep their names once another is loaded at their addresses"
