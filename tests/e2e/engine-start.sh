# engine-start.sh - a stop of the world right at a program's start, under
# `hookscoped run`: the agent's reporter thread takes no signal, so a stop
# must pass it by from its first instruction (one that waited for it would
# give up after a second and patch nothing).  tests/e2e/data/dlcycle.c
# (cc -O2 -g) dlopens a plugin first thing in main, and the dlopen wrapper
# patches the plugin with the world stopped.  Ten runs, each under a daemon
# of its own, at level 4: no failed stop in the agent's log, and the
# plugin's 100 calls counted exactly every time.
. tests/e2e/lib.sh

cc_prog tests/e2e/data/dlcycle.c
printf 'long plug_inner(long x) { return x * 3 + 1; }\nlong plug(long x) { return plug_inner(x) + 2; }\n' \
	>"$HS_TMP/p.c"
cc -O2 -shared -fPIC -o "$HS_TMP/p.so" "$HS_TMP/p.c" || fail "cannot build the plugin"
export HOOKSCOPE_LEVEL=4
for i in 1 2 3 4 5 6 7 8 9 10; do
	start_daemon --budget off run -- "$HS_TMP/dlcycle" 1 "$HS_TMP/p.so"
	wait_for 20 sh -c "[ \$(grep -c 'ended: ' '$HS_TMP/daemon.log') -ge $i ]"
	! grep -q "cannot stop" "$HS_TMP/daemon.log" ||
		fail "run $i: $(grep 'cannot stop' "$HS_TMP/daemon.log" | head -1)"
	wait_until 10 jq_once '[.funcs[] | select(.name == "plug") | .calls] | add == 100' ||
		fail "run $i: plug not counted 100 times: $(once_json | jq -c '[.funcs[] | {name, calls}]')"
	stop_daemon
done
echo "ok: 10 runs of a program that dlopens at once, its plugin patched and counted exactly each time"
