# engine-libcalls.sh - the hook engine
# at level 3 on calls into system libraries, and on modules loaded
# later with dlopen:
#   1. /usr/bin/sqlite3 (Debian's, stripped, BIND_NOW) runs a scripted
#      workload of 222 statements at level 3: its calls into libsqlite3, timed
#      through its patched GOT, are counted per library function exactly as a
#      counting LD_PRELOAD shim (tests/e2e/data/libcount.c, built here) counts
#      the calls the program makes in an identical run; then, from level 2
#      to 3 and back, its PLT entry of sqlite3_step holds the function while
#      imports are not watched and the block while they are, and its GLOB_DAT
#      entry of sqlite3_free the block throughout;
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

# 1b. Import entries follow their site's switch.  At level 2 (imports not
# watched) sqlite3's PLT entry (JUMP_SLOT) of sqlite3_step holds the library
# function itself, so its calls cost nothing; at level 3 it holds the site's
# block; back at 2, the function again.  Its GLOB_DAT entry of sqlite3_free (a
# value the program may keep as a function pointer) holds the block at every
# level once patched.  Addresses from readelf and /proc/PID/maps, values from
# /proc/PID/mem.
cmd() { "$O/hookscope" --cmd "$*" "ws://127.0.0.1:$HS_PORT" >/dev/null; }
# base PID PATH-PATTERN: the load address of the object (its offset-0 mapping)
base() { awk -v p="$2" '$5 != "00:00" && $3 == "00000000" && $6 ~ p { split($1, a, "-"); print a[1]; exit }' "/proc/$1/maps"; }
# mem8 PID ADDR: the 8-byte value at ADDR (decimal), as hex
mem8() { dd if="/proc/$1/mem" bs=8 count=1 skip="$2" iflag=skip_bytes 2>/dev/null | od -An -tx8 | tr -d ' '; }
LIBSQL=$(ldd /usr/bin/sqlite3 | awk '/libsqlite3/ { print $3 }')
[ -n "$LIBSQL" ] || fail "sqlite3 does not link libsqlite3: $(ldd /usr/bin/sqlite3)"
LIBSQL=$(readlink -f "$LIBSQL")
reloc() { readelf -rW /usr/bin/sqlite3 | awk -v s="$1" -v t="$2" '$3 == t && ($5 == s || $5 ~ "^" s "@") { print $1; exit }'; }
symval() { readelf -sW --dyn-syms "$LIBSQL" | awk -v s="$1" '$8 == s || $8 ~ "^" s "@" { print $2; exit }'; }
step_slot=$(reloc sqlite3_step R_X86_64_JUMP_SLOT)
free_slot=$(reloc sqlite3_free R_X86_64_GLOB_DAT)
step_val=$(symval sqlite3_step)
free_val=$(symval sqlite3_free)
[ -n "$step_slot" ] && [ -n "$free_slot" ] && [ -n "$step_val" ] && [ -n "$free_val" ] ||
	fail "readelf: slots '$step_slot' '$free_slot', symbols '$step_val' '$free_val'"
start_daemon
mkfifo "$HS_TMP/in2"
exec 3<>"$HS_TMP/in2"
spawn sh -c 'exec env HOOKSCOPE_SOCKET="$1" HOOKSCOPE_LEVEL=2 LD_PRELOAD="$2" \
	sqlite3 :memory: <"$3" >/dev/null 2>&1 3<&-' sh "$HS_SOCK" "$HS_PRELOAD" "$HS_TMP/in2"
SQL2=$SPAWNED
echo "SELECT 1;" >&3
# the agent's first patch is done once its import sites report
wait_for 20 jq_once '.sites.import.disabled > 0' >/dev/null
exe=$(base "$SQL2" '/sqlite3$')
lib=$(base "$SQL2" "$(basename "$LIBSQL")\$")
[ -n "$exe" ] && [ -n "$lib" ] || fail "no mappings of sqlite3 ($exe) or $LIBSQL ($lib) in pid $SQL2"
step_at=$((0x$exe + 0x$step_slot)); free_at=$((0x$exe + 0x$free_slot))
step_fn=$(printf '%016x' $((0x$lib + 0x$step_val))); free_fn=$(printf '%016x' $((0x$lib + 0x$free_val)))
step_is() { [ "$(mem8 "$SQL2" "$step_at")" = "$1" ]; }
step_not() { v=$(mem8 "$SQL2" "$step_at") && [ -n "$v" ] && [ "$v" != "$1" ]; }
wait_until 10 step_is "$step_fn" ||
	fail "level 2: sqlite3_step's PLT entry holds $(mem8 "$SQL2" "$step_at"), not the function ($step_fn)"
[ "$(mem8 "$SQL2" "$free_at")" != "$free_fn" ] ||
	fail "level 2: sqlite3_free's GLOB_DAT entry was given the function back"
echo "level 2: sqlite3_step's PLT entry holds the function ($step_fn); sqlite3_free's GLOB_DAT a block ($(mem8 "$SQL2" "$free_at"))"
cmd level 3 || fail "level 3 was refused"
wait_until 10 step_not "$step_fn" || fail "level 3: sqlite3_step's PLT entry still holds the function"
blk=$(mem8 "$SQL2" "$step_at")
i=0
while [ "$(calls sqlite3_step)" = "sqlite3_step=0" ]; do
	echo "SELECT 2;" >&3
	i=$((i + 1)); [ $i -lt 50 ] || fail "level 3: sqlite3_step is not timed through its block $blk"
	sleep 0.2
done
echo "level 3: the PLT entry holds the block ($blk), and the calls are timed"
cmd level 2 || fail "level 2 was refused"
wait_until 10 step_is "$step_fn" || fail "back at level 2: sqlite3_step's PLT entry holds $(mem8 "$SQL2" "$step_at")"
[ "$(mem8 "$SQL2" "$free_at")" != "$free_fn" ] || fail "back at level 2: the GLOB_DAT entry changed"
echo "back at level 2: the PLT entry holds the function again"
exec 3>&-
wait_for 10 sh -c "! kill -0 $SQL2 2>/dev/null"
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
