# engine-libcalls.sh - the hook engine
# at level 3 on calls into system libraries, and on modules loaded
# later with dlopen:
#   1. /usr/bin/sqlite3 (Debian's, stripped, BIND_NOW) runs a scripted
#      workload of 222 statements at level 3: its calls into libsqlite3, timed
#      through its patched GOT, are counted per library function exactly as a
#      counting LD_PRELOAD shim (tests/e2e/data/libcount.c, built here) counts
#      the calls the program makes in an identical run;
#   2. a program (tests/e2e/data/dlmain.c) dlopens a library
#      (tests/e2e/data/dlmod.c) once the engine has patched it, at level 4:
#      the library's functions, the static one too, show with exact counts;
#   3. the same program started without hookscope and attached: the library
#      it dlopens after the attach is patched too (through the GOT entry the
#      engine binds to the agent's dlopen), and detach leaves it running.
. tests/e2e/lib.sh

command -v cc >/dev/null || fail "no C compiler (cc) to build the test programs"
command -v sqlite3 >/dev/null || fail "no sqlite3 (apt-get install sqlite3, or run 'make deps')"

# calls NAME...: "name=count ..." of a fresh frame (0 if absent).
calls() {
	once_json --top 500 >"$HS_TMP/f.json" || return 1
	local n out=""
	for n in "$@"; do
		out="$out $n=$(jq --arg n "$n" '[.funcs[] | select(.name == $n) | .calls][0] // 0' "$HS_TMP/f.json")"
	done
	echo "${out# }"
}

# 1. sqlite3 at level 3 against the shim's count of the same workload.
{
	echo "CREATE TABLE t(a INTEGER, b TEXT);"
	i=1; while [ $i -le 200 ]; do echo "INSERT INTO t VALUES($i, 'row$i');"; i=$((i + 1)); done
	i=1; while [ $i -le 20 ]; do echo "SELECT count(*), sum(a) FROM t WHERE a > $i;"; i=$((i + 1)); done
	echo "SELECT a, b FROM t WHERE a <= 30;"
} >"$HS_TMP/script.sql"
cc -O2 -shared -fPIC -o "$HS_TMP/libcount.so" tests/e2e/data/libcount.c ||
	fail "cannot build tests/e2e/data/libcount.c"
LIBCOUNT_OUT="$HS_TMP/count.txt" LD_PRELOAD="$HS_TMP/libcount.so" sqlite3 :memory: \
	<"$HS_TMP/script.sql" >"$HS_TMP/shim.out" || fail "sqlite3 failed under the counting shim"
want=$(awk '{printf "%s%s=%s", (NR > 1 ? " " : ""), $1, $2}' "$HS_TMP/count.txt")
case "$want" in
*sqlite3_prepare_v2=222*) ;;
*) fail "the shim did not count the 222 statements: $want" ;;
esac

start_daemon
mkfifo "$HS_TMP/in"
# sqlite3 keeps reading its input (held open on fd 3, read-write so the open
# does not wait for a reader) so its counts can be read after the workload.
exec 3<>"$HS_TMP/in"
# (sh -c: an asynchronous command's own stdin would be /dev/null.)
spawn sh -c 'exec env HOOKSCOPE_SOCKET="$1" HOOKSCOPE_LEVEL=3 LD_PRELOAD="$2" \
	sqlite3 :memory: <"$3" >"$4" 2>"$5" 3<&-' sh "$HS_SOCK" "$HS_PRELOAD" "$HS_TMP/in" \
	"$HS_TMP/sql.out" "$HS_TMP/sql.err"
SQL_PID=$SPAWNED
cat "$HS_TMP/script.sql" >&3
got=""
same() { got=$(calls sqlite3_prepare_v2 sqlite3_step sqlite3_finalize) && [ "$got" = "$want" ]; }
i=0
while ! same; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "level 3: sqlite3's library calls differ from the shim: got '$got', want '$want'"
	sleep 0.2
done
sleep 0.5
same || fail "level 3: the counts moved past the shim's: got '$got', want '$want'"
cmp -s "$HS_TMP/sql.out" "$HS_TMP/shim.out" || fail "sqlite3 printed other results when hooked"
echo "level 3: sqlite3 -> libsqlite3: $got (shim: $want)"
exec 3>&-
# End of its input: sqlite3 exits (before the next daemon, which it would join).
wait_for 10 sh -c "! kill -0 $SQL_PID 2>/dev/null"
stop_daemon

# 2. a library dlopened after start, at level 4.
cc -O2 -shared -fPIC -o "$HS_TMP/libdlmod.so" tests/e2e/data/dlmod.c ||
	fail "cannot build tests/e2e/data/dlmod.c"
cc -O2 -o "$HS_TMP/dlmain" tests/e2e/data/dlmain.c || fail "cannot build tests/e2e/data/dlmain.c"
export HOOKSCOPE_LEVEL=4
start_daemon run -- "$HS_TMP/dlmain" "$HS_TMP/libdlmod.so" "$HS_TMP/go" 60
# dlopen only once the engine has patched the program (main_wait is timed).
wait_for 20 jq_once '.funcs[] | select(.name == "main_wait" and .calls > 0)' --top 500
touch "$HS_TMP/go"
exact() {
	got=$(calls dl_once dl_many dl_static) &&
		[ "$got" = "dl_once=3 dl_many=1000 dl_static=1000" ] &&
		[ "$(calls dl_tick)" != "dl_tick=0" ]
}
# wait_exact WHAT: poll exact (it sets $got) for up to 20 s.
wait_exact() {
	local i=0
	while ! exact; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "$1: counts are not exact: $got (want dl_once=3 dl_many=1000 dl_static=1000)"
		sleep 0.2
	done
}
wait_exact "dlopened library at level 4"
echo "level 4, dlopened later: $got"
stop_daemon

# 3. The same program started without hookscope and attached at level 4: an
# attached agent interposes nothing, so its dlopen reaches the agent only
# through the GOT entry the engine binds to it; the library loaded after the
# attach is patched all the same.  Detach gives the entry back.
rm -f "$HS_TMP/go"
start_daemon
spawn_attachable "$HS_TMP/dlmain" "$HS_TMP/libdlmod.so" "$HS_TMP/go" 60
DL_PID=$SPAWNED
wait_for 10 sh -c "grep -q dlmain /proc/$DL_PID/maps"
"$O/hookscoped" --socket "$HS_SOCK" attach "$DL_PID" --level 4 >"$HS_TMP/attach.txt" 2>&1 ||
	fail "attach failed: $(cat "$HS_TMP/attach.txt")"
wait_for 20 jq_once ".funcs[] | select(.name == \"main_wait\" and .calls > 0)" --top 500
touch "$HS_TMP/go"
wait_exact "attached, dlopened later"
"$O/hookscoped" detach "$DL_PID" >"$HS_TMP/detach.txt" 2>&1 || fail "detach failed: $(cat "$HS_TMP/detach.txt")"
wait_for 10 sh -c "! grep -q libhookscope /proc/$DL_PID/maps"
kill -0 "$DL_PID" || fail "dlmain died after the detach"
echo "attached, dlopened later: $got; detached"
