# fault-clients.sh - many clients and bad ones: 50 clients at once all get
# the hello and frames; clients that vanish mid-handshake, mid-frame and
# mid-fragmented-message leave nothing behind; a client that never reads
# costs the daemon at most one frame (latest frame wins, doc/protocol.md):
# its memory stays flat while the frames it misses are counted.
. tests/e2e/lib.sh
# Memory is measured: a sanitized daemon keeps freed blocks in a quarantine
# (256 MiB by default), which is the sanitizer's memory, not the daemon's.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=4:thread_local_quarantine_size_kb=64"
ws() { "$O/tools/hs-wsclient" -p "$HS_PORT" "$@"; }
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$DAEMON_PID/status"; }

start_daemon -v --rate 50 run -- "$O/apps/demo" --period-ms 20
wait_for 20 jq_once '.funcs[] | select(.name == "slow_work")'
demo=$(once_json | jq -e .pid) || fail "no target"

# 50 clients at once, each: hello + 10 frames of the demo.
pids=""
for i in $(seq 1 50); do
	ws -n 11 -t 60 >"$HS_TMP/c$i" 2>&1 &
	pids="$pids $!"
done
HS_PIDS="$HS_PIDS $pids"
for p in $pids; do wait "$p" || fail "a client of 50 failed (exit $?)"; done
for i in $(seq 1 50); do
	grep -q '"t":"hello"' "$HS_TMP/c$i" || fail "client $i: no hello"
	[ "$(grep -c "\"t\":\"frame\",\"seq\":[0-9]*,\"time_ms\":[0-9]*,\"pid\":$demo" "$HS_TMP/c$i")" -eq 10 ] ||
		fail "client $i: not 10 frames of pid $demo: $(head -c 300 "$HS_TMP/c$i")"
done

# Vanishing clients: a raw socket that stops mid-handshake, mid-frame (a
# 10000-byte message, 100 bytes sent), mid-message (a first fragment
# without FIN); 20 of each.
upgrade='GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: hookscope\r\n\r\n'
payload=$(printf '%0100d' 0 | sed 's/0/\\x41/g')
raw() {   # BYTES (printf format) after the upgrade (or instead: "cut")
	exec 3<>"/dev/tcp/127.0.0.1/$HS_PORT" || return 1
	if [ "$1" = cut ]; then
		printf 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgr' >&3
	else
		printf "$upgrade" >&3
		timeout 5 head -c 12 <&3 >/dev/null     # "HTTP/1.1 101"
		printf "$1" >&3
	fi
	exec 3<&-
}
rss0=$(rss_kb)
for i in $(seq 1 20); do
	raw cut
	raw "\\x82\\xfe\\x27\\x10\\x01\\x02\\x03\\x04$payload"
	raw "\\x02\\xe4\\x01\\x02\\x03\\x04$payload"
done
kill -0 "$DAEMON_PID" || fail "hookscoped died"
ws --replies --no-frames -t 10 'cmd targets' | grep -q '"ok":true' || fail "daemon unusable after vanishing clients"

# A client that never reads, for 12 s, at 50 frames/s of 1000 rows (a fake
# agent with 5000 functions), while a normal client goes on.
spawn "$O/tools/hs-fakeagent" --socket "$HS_SOCK" --pid 999990 --funcs 5000 >/dev/null
wait_for 20 jq_once '.targets[] | select(.pid == 999990)'
ws --stall 12000 -t 14 'cmd target 999990' 'cmd top 1000' >"$HS_TMP/stalled" 2>&1 &
stalled=$!
ws -n 300 -t 30 >"$HS_TMP/normal" 2>&1 &
normal=$!
HS_PIDS="$HS_PIDS $stalled $normal"
sleep 2       # let the stalled client's socket buffers fill first
base=$(rss_kb)
max=$base
for i in $(seq 1 10); do
	sleep 1
	r=$(rss_kb)
	[ "$r" -gt "$max" ] && max=$r
done
wait "$normal" || fail "the normal client starved beside the stalled one (exit $?)"
wait "$stalled"
[ $((max - base)) -lt 8192 ] || fail "daemon RSS grew by $(( (max - base) / 1024 )) MiB while a client did not read"
wait_for 10 grep -q 'skipped for a slow link' "$HS_TMP/daemon.log"
skipped=$(grep -o '[0-9]* skipped for a slow link' "$HS_TMP/daemon.log" | sort -n | tail -1 | cut -d' ' -f1)
# A sanitized daemon builds frames too slowly to fill the socket in 12 s.
[ -n "${SAN:-}" ] || [ "${skipped:-0}" -ge 100 ] ||
	fail "the stalled client missed only ${skipped:-0} frames (want >= 100 counted)"
echo "ok: 50 clients x 10 frames; 60 vanishing clients; RSS ${rss0} kB at start, +$((max - base)) kB over 10 s of a stalled client ($skipped frames skipped)"
