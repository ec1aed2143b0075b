# targets.sh - several targets and several clients at once: targets started
# by hand with the agent preloaded, chosen per client, exited ones kept until
# forgotten.
. tests/e2e/lib.sh
start_daemon
env LD_PRELOAD="$HS_PRELOAD" HOOKSCOPE_SOCKET="$HS_SOCK" "$O/apps/demo" --period-ms 20 >/dev/null &
a=$!; HS_PIDS="$HS_PIDS $a"
env LD_PRELOAD="$HS_PRELOAD" HOOKSCOPE_SOCKET="$HS_SOCK" "$O/apps/demo" --cycles 15 --period-ms 20 --exit >/dev/null &
b=$!; HS_PIDS="$HS_PIDS $b"

wait_for 20 jq_once '.targets | length == 2'
# Each client picks its own target; the figures are the target's own.
wait_for 20 jq_once ".pid == $a and (.funcs[] | select(.name == \"slow_work\") | .calls > 0)" --target "$a"
wait_for 20 jq_once ".pid == $b and (.funcs[] | select(.name == \"slow_work\") | .calls == 15)" --target "$b"
wait_for 20 jq_once "[.targets[] | select(.pid == $b)][0].state == \"exited\""
# Auto selection shows the live target; the exited one keeps its final figures.
jq_once ".pid == $a" >/dev/null || fail "auto target is not the live demo $a"
jq_once '.funcs[] | select(.name == "fast_hash") | .calls == 15750' --target "$b" --top 100 >/dev/null ||
	fail "exited target $b lost its final figures"

# Three clients at once, each gets frames for its own target.
clients=""
for t in "$a" "$b" "$a"; do
	"$O/tools/hs-wsclient" -p "$HS_PORT" -n 15 -t 10 "cmd target $t" >"$HS_TMP/c.$t.$RANDOM" 2>&1 &
	clients="$clients $!"
done
HS_PIDS="$HS_PIDS $clients"
for p in $clients; do wait "$p" || fail "a client got no frames"; done
for f in "$HS_TMP"/c.*; do
	t=${f#*c.}; t=${t%.*}
	[ "$(grep -c "\"t\":\"frame\",\"seq\":[0-9]*,\"time_ms\":[0-9]*,\"pid\":$t" "$f")" -ge 10 ] ||
		fail "client for $t got too few frames of its target: $(tail -2 "$f")"
done

"$O/hookscope" --cmd "forget $b" "ws://127.0.0.1:$HS_PORT" >/dev/null || fail "forget $b refused"
jq_once ".targets | length == 1 and .[0].pid == $a" >/dev/null || fail "forgotten target still listed"
"$O/hookscope" --cmd "forget $a" "ws://127.0.0.1:$HS_PORT" >/dev/null 2>&1 && fail "forget of a live target accepted"
echo "ok: two targets, three clients, exited target kept then forgotten"
