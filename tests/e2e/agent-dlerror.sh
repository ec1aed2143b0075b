# agent-dlerror.sh - the agent's work inside the program's calls leaves the
# program's own state alone: errno across the allocations the memory
# collector records and across every wrapped call, and a failed dlopen's
# error until the program reads it with dlerror() (glibc ends it at the
# next dl function on the thread, so the agent must not look a wrapper's
# real function up there).
# tests/e2e/data/dlerror.c checks both on every call the agent wraps, made
# for the first time, under a daemon at levels 2 and 4, allocations
# recorded each way (full, sampled).  Then a real program: Debian's bash
# asks for a loadable builtin that is not there 300 times (pyenv's shims do
# it on every start), 30 runs: no crash and every message bash prints is
# glibc's (a stack walk's first call made inside dlerror freed its message
# under it, or changed its errno).
. tests/e2e/lib.sh
[ -x /bin/bash ] || fail "bash is missing: apt-get install bash"

cc_prog tests/e2e/data/dlerror.c
start_daemon
for level in 2 4; do
	for mem in full sampled; do
		out=$(HOOKSCOPE_LEVEL=$level HOOKSCOPE_MEMORY=$mem HOOKSCOPE_MEMORY_SAMPLE=4096 \
			HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD "$HS_TMP/dlerror")
		rc=$?
		[ "$rc" -eq 0 ] || fail "level $level, memory $mem: exit $rc: $(echo "$out" | grep -v '^ok' | head -5)"
		[ "$(echo "$out" | grep -c '^ok ')" -eq 18 ] ||
			fail "level $level, memory $mem: not every check ran: $out"
	done
done
echo "ok: errno and a failed dlopen's error survive the agent in 18 checks at levels 2 and 4"

cat >"$HS_TMP/enable.sh" <<'EOF'
i=0
while [ $i -lt 300 ]; do
	enable -f /nonexistent/hookscope-builtin.so x
	i=$((i + 1))
done
EOF
for run in $(seq 30); do
	HOOKSCOPE_LEVEL=2 HOOKSCOPE_MEMORY=sampled HOOKSCOPE_MEMORY_SAMPLE=400000 \
		HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD \
		/bin/bash "$HS_TMP/enable.sh" 2>"$HS_TMP/enable.err"
	rc=$?
	[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || fail "run $run: bash ended with status $rc (a crash)"
	n=$(grep -c "cannot open shared object file: No such file or directory" "$HS_TMP/enable.err")
	[ "$n" -eq 300 ] || fail "run $run: $n of bash's 300 messages are glibc's: $(grep -av 'No such file or directory' "$HS_TMP/enable.err" | head -2)"
done
echo "ok: bash's failed loadable builtins, 30 runs of 300 under the agent: no crash, every message intact"
