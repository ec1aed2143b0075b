# map.sh - a stripped program named by its GNU ld map file (HOOKSCOPE_MAP):
# PIE without -ffunction-sections (global functions named), non-PIE with it
# (static functions named too), and an uninstrumented build whose functions
# the hook engine patches by the map's names; a malformed map is reported
# with file:line and ignored while the target runs on.
. tests/e2e/lib.sh
command -v strip >/dev/null 2>&1 || fail "strip not found: install binutils"
command -v nm >/dev/null 2>&1 || fail "nm not found: install binutils"
CC=${CC:-cc}
cat >"$HS_TMP/m.c" <<'C'
#include <unistd.h>
static volatile int sink;
__attribute__((noinline)) static int map_leaf(int x) { return x * 3 + 1; }
__attribute__((noinline)) int map_work(int x) { return map_leaf(x) + 2; }
__attribute__((noinline)) int map_step(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += map_work(i);
	return s;
}
int main(void)
{
	for (;;) {
		sink = map_step(10);
		usleep(10000);
	}
}
C

# build KIND FLAGS...: compile (with -finstrument-functions unless INSTR is
# set to something else), link with a map, strip; fail if symbols remain.
build() {
	local kind=$1; shift
	"$CC" -O2 ${INSTR--finstrument-functions} "$@" -Wl,-Map="$HS_TMP/m-$kind.map" \
		"$HS_TMP/m.c" -o "$HS_TMP/m-$kind" || fail "cannot build the $kind test program"
	strip "$HS_TMP/m-$kind" || fail "strip failed"
	nm "$HS_TMP/m-$kind" 2>&1 | grep -q "no symbols" || fail "m-$kind still has a symbol table"
}

# names_of KIND: the function names of the newest frame, one line.
names() {
	once_json --top 50 | jq -c '[.funcs[].name] | sort'
}

# check KIND LEVEL JQ-CONDITION-ON-NAMES
check() {
	local kind=$1 cond=$3
	HOOKSCOPE_MAP="*/m-$kind=$HS_TMP/m-$kind.map" HOOKSCOPE_LEVEL=$2
	export HOOKSCOPE_MAP HOOKSCOPE_LEVEL
	start_daemon run -- "$HS_TMP/m-$kind"
	wait_until 20 jq_once "[.funcs[].name] | $cond" --top 50 ||
		fail "$kind: functions not named from the map: $(names)"
	echo "ok: $kind: $(names)"
	stop_daemon
}

build pie
check pie 2 'index("map_work") != null and index("map_step") != null and index("main") != null'
build nopie -no-pie -ffunction-sections
# level 4: map_leaf is static (named by its section), timed from level 4 only
check nopie 4 'index("map_work") != null and index("map_step") != null and index("main") != null and index("map_leaf") != null'
# Not instrumented: the hook engine patches the functions the map names.
INSTR= build plain -no-pie -ffunction-sections
check plain 4 'index("map_work") != null and index("map_step") != null and index("main") != null and index("map_leaf") != null'

# A malformed map: a clear file:line error from the agent, the program runs on.
printf 'Linker script and memory map\n\n.text 0x1000 0x10\n .text 0x1000 0x10 a.o\n   0xzz foo\n' \
	>"$HS_TMP/bad.map"
HOOKSCOPE_MAP="m-pie=$HS_TMP/bad.map"
export HOOKSCOPE_MAP
start_daemon run -- "$HS_TMP/m-pie"
wait_for 20 jq_once '.funcs | length > 0' --top 50
grep -q "bad.map:5: bad address" "$HS_TMP/daemon.log" ||
	fail "no file:line error for the malformed map: $(tail -n 5 "$HS_TMP/daemon.log")"
once_json --top 50 | jq -e '[.funcs[].name] | index("map_work") == null' >/dev/null ||
	fail "a malformed map still named functions"
stop_daemon
echo "ok: malformed map reported as $(grep -o 'bad.map:5: [a-z ]*' "$HS_TMP/daemon.log" | head -1)"

# hookscoped run --map GLOB=FILE: the same map given on the command line, with a
# path relative to the current directory (made absolute before the target starts).
unset HOOKSCOPE_MAP
rel=$(realpath --relative-to=. "$HS_TMP/m-nopie.map") || fail "realpath failed"
start_daemon run --map "*/m-nopie=$rel" -- "$HS_TMP/m-nopie"
wait_until 20 jq_once '[.funcs[].name] | index("map_leaf") != null and index("map_work") != null' --top 50 ||
	fail "--map: functions not named from the map: $(names)"
echo "ok: --map $rel: $(names)"
stop_daemon

# A missing map file: a clear error, exit 2, and the target is never started.
out=$("$O/hookscoped" --port "$HS_PORT" --socket "$HS_TMP/agent.sock" run \
	--map "m-pie=$HS_TMP/nope.map" -- touch "$HS_TMP/started" 2>&1)
rc=$?
[ "$rc" = 2 ] || fail "--map with a missing file: exit $rc, expected 2 ($out)"
echo "$out" | grep -q "nope.map: No such file" || fail "--map missing file: unclear error: $out"
[ ! -e "$HS_TMP/started" ] || fail "--map with a missing file still started the target"
echo "ok: missing --map file: $out" | head -1
