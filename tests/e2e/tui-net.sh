# tui-net.sh - the network view of the interactive hookscope in tmux, on
# Debian's python3 (urllib: getaddrinfo, connect, send, recv through libc)
# fetching a file from python3's http.server on loopback, then failing to
# reach a closed port, then sleeping.  n shows the network view (the summary,
# the endpoint rows with their bytes, the refused one with its reason, the
# name row); Enter shows the failed connect with the python3 stack; the
# overview (0) has the network box.
. tests/e2e/lib.sh
command -v tmux >/dev/null || fail "tmux is not installed (run 'make deps')"

TM_SOCK="hookscope-tui-net-$$"
trap 'tm kill-server 2>/dev/null; hs_cleanup' EXIT

WEB=$(free_port)
CLOSED=$(free_port)
mkdir -p "$HS_TMP/www"
head -c 5000 /dev/urandom >"$HS_TMP/www/file.bin"
(cd "$HS_TMP/www" && exec python3 -m http.server --bind 127.0.0.1 "$WEB") >"$HS_TMP/http.log" 2>&1 &
HS_PIDS="$HS_PIDS $!"
wait_for 20 port_listening "$WEB"
start_daemon run -- /usr/bin/python3 -c "
import time, urllib.request
urllib.request.urlopen('http://127.0.0.1:$WEB/file.bin').read()
try:
    urllib.request.urlopen('http://127.0.0.1:$CLOSED/')
except OSError as e:
    print('refused:', e, flush=True)
time.sleep(600)"
wait_for 20 grep -q "refused:" "$HS_TMP/daemon.log"
pid=$(once_json | jq -e '[.targets[] | select(.name == "python3")][0].pid') || fail "no python3 target"
wait_for 20 jq_once "[.network.endpoints[] | select(.addr == \"127.0.0.1:$CLOSED\" and .connect_fails == 1)] | length == 1" --target "$pid"
wait_for 20 jq_once "[.network.endpoints[] | select(.addr == \"127.0.0.1:$WEB\" and .bytes_in > 5000)] | length == 1" --target "$pid"

tm new-session -d -s hs -x 180 -y 40 \
	"env LANG=C.UTF-8 LC_ALL= HOOKSCOPE_STATE_DIR='$HS_TMP/state' '$O/hookscope' --target $pid \
	ws://127.0.0.1:$HS_PORT 2>'$HS_TMP/tui.err'; exec sleep 600"
wait_screen 20 hs grep -q '^NAME'
tm send-keys -t hs n
wait_screen 10 hs grep -Eq 'Network: 2 endpoints, 2 connects, 1 failures; 0 requests \(0 failed\); [0-9]+ lookups \(0 failed\); slow over 500 ms; Enter: details'
wait_screen 10 hs grep -Eq '^ *KIND +ENDPOINT / REQUEST / NAME +COUNT +FAILED +AVG +MAX +OUT +IN +LAST REASON'
wait_screen 10 hs grep -Eq "^ *tcp +127\\.0\\.0\\.1:$WEB +1 +0 .* [0-9]+ +5[0-9]{3} +-\$"
wait_screen 10 hs grep -Eq "^ *tcp +127\\.0\\.0\\.1:$CLOSED +1 +1 .* Connection refused \\(ECONNREFUSED\\)\$"
wait_screen 10 hs grep -Eq '^ *dns +127\.0\.0\.1 +[0-9]+ +0 '
echo "--- view ---"
screen hs | sed -n '1,8p'
tm send-keys -t hs Enter
wait_screen 10 hs grep -Eq "FAILED connect [0-9.]+[mu]?s \\(thread [0-9]+\\) tcp 127\\.0\\.0\\.1:$CLOSED"
wait_screen 10 hs grep -q 'Connection refused (ECONNREFUSED)'
wait_screen 10 hs grep -Eq '\[python3\.[0-9]+\]|\[libpython'
echo "--- details ---"
screen hs | sed -n '1,16p'
tm send-keys -t hs q
tm send-keys -t hs 0
wait_screen 10 hs grep -Eq 'Network: 2 endpoints'
tm send-keys -t hs q
echo "ok: network view, refused endpoint with its reason, details with the stack, overview box"
