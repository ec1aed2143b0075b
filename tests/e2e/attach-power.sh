# attach-power.sh - the power collector in a process hookscope did not
# start: tests/e2e/data/power-app.c ("hold" mode) takes a wakelock through
# the stand-in libhardware_legacy (power-fixture.c: it writes the name to
# the stand-in /sys/power/wake_lock, HOOKSCOPE_POWER_SYSFS), and is attached
# while it holds it: the wakelock shows as held, its api says held before
# the attach (the kernel's list of active wakelocks); then the program
# releases it: the release is counted (through the fixture's
# release_wake_lock, bound after the attach) and the hold ends.
. tests/e2e/lib.sh

D=tests/e2e/data
cc -O2 -g -shared -fPIC -o "$HS_TMP/libpowerfixture.so" $D/power-fixture.c ||
	fail "cannot build the fixture library"
pkg-config --exists dbus-1 libgps || fail "libdbus-1-dev or libgps-dev is not installed (test dependencies: make deps)"
cc -O2 -g -o "$HS_TMP/power-app" $D/power-app.c $(pkg-config --cflags --libs dbus-1 libgps) \
	-L"$HS_TMP" -lpowerfixture -Wl,-rpath,"$HS_TMP" || fail "cannot build power-app"
SYS=$HS_TMP/sys
mkdir -p "$SYS/sys/power"
: >"$SYS/sys/power/wake_lock"; : >"$SYS/sys/power/wake_unlock"
export HOOKSCOPE_POWER_SYSFS=$SYS       # the program's fixture and the attach file
start_daemon

spawn_attachable "$HS_TMP/power-app" hold "$HS_TMP/go" "$HS_TMP/end" >"$HS_TMP/app.txt"
PA=$SPAWNED
wait_for 10 grep -q "power-app: holding" "$HS_TMP/app.txt"
"$O/hookscoped" --socket "$HS_SOCK" attach "$PA" --level 1 >"$HS_TMP/attach.txt" 2>&1 ||
	fail "attach failed: $(cat "$HS_TMP/attach.txt")"
wait_for 20 jq_once "[.targets[] | select(.pid == $PA and .state == \"live\")] | length == 1"
held() { jq_once '[.power.resources[] | select(.name == "held" and .category == "wakelock")][0] |
	.held == true and .api == "(held before the attach)" and .held_ns > 0' --target "$PA"; }
wait_for 10 held
touch "$HS_TMP/go"
wait_for 10 grep -q "power-app: released" "$HS_TMP/app.txt"
released() { jq_once '[.power.resources[] | select(.name == "held" and .category == "wakelock")][0] |
	.held == false and .releases == 1 and .unmatched == 0 and .total_ns > 0' --target "$PA"; }
wait_for 10 released
once_json --target "$PA" | jq -c '.power.resources[] | {name, category, api, held, acquires, releases, unmatched, total_ns}'
touch "$HS_TMP/end"
wait_for 10 sh -c "! kill -0 $PA 2>/dev/null"
wait "$PA" || fail "power-app exited with status $?"
stop_daemon
echo "attach-power: ok"
