# engine-sigblock.sh - a program whose threads block every signal (they leave
# them to a sigwait thread) is watched, not killed.  The engine rewrites
# entries while threads run with a trap at byte 0 first; a thread that
# blocks SIGTRAP and runs into one is killed by the kernel (it forces the
# default action on a blocked trap): tests/e2e/data/sigblock.c died with
# SIGTRAP at the budget's first decision, 2 runs of 2, before.  Now such a
# process gets no live rewrite (the switches alone decide).  At levels 2 and
# 4, default budget, under a daemon: the program ends by itself with status
# 0, its functions are timed or counted with calls, and the agent's log says
# why entries stay as they are.
. tests/e2e/lib.sh

cc_prog tests/e2e/data/sigblock.c
start_daemon
export HOOKSCOPE_SOCKET=$HS_SOCK HOOKSCOPE_DEBUG=1
for level in 2 4; do
	rm -f "$HS_TMP/rc"
	(HOOKSCOPE_LEVEL=$level LD_PRELOAD=$HS_PRELOAD "$HS_TMP/sigblock" 4 >"$HS_TMP/out" 2>"$HS_TMP/log"
		echo $? >"$HS_TMP/rc") &
	wait_until 30 test -s "$HS_TMP/rc" || fail "level $level: sigblock did not end within 30 s"
	[ "$(cat "$HS_TMP/rc")" = 0 ] ||
		fail "level $level: sigblock ended with status $(cat "$HS_TMP/rc") ($(kill -l "$(cat "$HS_TMP/rc")" 2>/dev/null)): $(tail -2 "$HS_TMP/log")"
	grep -q "^done [1-9][0-9]* [1-9][0-9]*$" "$HS_TMP/out" || fail "level $level: sigblock's output: $(cat "$HS_TMP/out")"
	grep -q "blocks SIGTRAP: entries are no longer rewritten" "$HS_TMP/log" ||
		fail "level $level: the agent did not see the threads that block SIGTRAP: $(grep 'hook:' "$HS_TMP/log" | tail -3)"
	pid=$(sed -n 's/^hookscope\[\([0-9]*\)\].*/\1/p' "$HS_TMP/log" | head -1)
	wait_for 10 jq_once "[.funcs[] | select(.name | test(\"^f[0-9]+\$\")) | select(.calls > 0)] | length == 20" --target "$pid"
	echo "ok: level $level: $(cat "$HS_TMP/out"), its twenty functions with calls"
done
