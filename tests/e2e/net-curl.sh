# net-curl.sh - HTTP requests through libcurl (tests/apps/netcurl, a small
# libcurl program printing what libcurl measured for each transfer) against
# python3's http.server on loopback:
#   1. the easy interface: a small file (with a query string, left out of the
#      path), a large one (2 MiB, over the default 1 MiB threshold: flagged and
#      an event) and a missing one (404: an error status and an event); each
#      row's method, path, status, response bytes and total time equal the
#      program's own line, and the phases add up to at most the total.
#   2. a POST (the server answers 501): method POST, request bytes.
#   3. the multi interface: two transfers at once, each counted once with the
#      program's figures.
#   4. `threshold net-large 4096` (KiB) set while the program waits: the same
#      2 MiB response is no longer large.
. tests/e2e/lib.sh
APP=$O/apps/netcurl
[ -x "$APP" ] || fail "$APP is not built (make)"

start_daemon
WEB=$(free_port)
mkdir -p "$HS_TMP/www"
head -c 1000 /dev/urandom >"$HS_TMP/www/small.bin"
head -c $((2 * 1048576 + 1)) /dev/urandom >"$HS_TMP/www/big.bin"
(cd "$HS_TMP/www" && exec python3 -m http.server --bind 127.0.0.1 "$WEB") >"$HS_TMP/http.log" 2>&1 &
HS_PIDS="$HS_PIDS $!"
wait_for 20 port_listening "$WEB"
U="http://127.0.0.1:$WEB"

under_agent() {
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD "$@"
}
# The newest target called netcurl once N have exited.
exited_pid() {
	wait_for 20 jq_once "[.targets[] | select(.name == \"netcurl\" and .state == \"exited\")] | length >= $1"
	once_json | jq -e '[.targets[] | select(.name == "netcurl")] | max_by(.started_ms) | .pid'
}
# check_rows JSON OUT METHOD: every line "URL STATUS DOWN UP TOTAL_US RESULT ..." of
# the program's output OUT has its row (method, path without the query) with
# those figures, one request each.
check_rows() {
	while read -r url status down up total res rest; do
		path=${url#http://127.0.0.1:$WEB}
		path=${path%%\?*}
		jq -e --arg p "$path" --arg m "$3" --argjson s "$status" --argjson d "$down" --argjson u "$up" \
			--argjson t "$total" '[.network.http[] | select(.path == $p and .method == $m)][0] |
			.requests == 1 and .status == $s and .bytes_in == $d and .bytes_out == $u and
			.total_ns == $t * 1000 and .host == "127.0.0.1:'"$WEB"'" and .scheme == "http" and
			.dns_ns + .connect_ns + .tls_ns + .ttfb_ns <= .total_ns' "$1" >/dev/null ||
			fail "row of $3 $path: want status $status, $down bytes down, $up up, $total us; got $(jq -c --arg p "$path" '.network.http[] | select(.path == $p)' "$1")"
		echo "  $3 $path: status $status, $down bytes, $total us: as the program measured"
	done <"$2"
}

# 1. easy.
under_agent "$APP" easy "$U/small.bin?user=secret" "$U/big.bin" "$U/missing" >"$HS_TMP/easy.out" ||
	fail "netcurl easy failed"
[ "$(wc -l <"$HS_TMP/easy.out")" -eq 3 ] || fail "netcurl printed $(cat "$HS_TMP/easy.out")"
p=$(exited_pid 1)
once_json --target "$p" >"$HS_TMP/easy.json"
check_rows "$HS_TMP/easy.json" "$HS_TMP/easy.out" GET
jq -e '.network.large_bytes == 1048576 and
	([.network.http[] | select(.path == "/big.bin" and .large == 1)] | length == 1) and
	([.network.http[] | select(.path == "/missing" and .status_err == 1 and .fails == 0)] | length == 1) and
	([.network.http[] | select(.path == "/small.bin" and .large == 0 and .status_err == 0)] | length == 1) and
	([.network.events[] | select(.op == "http" and .large and .error == "" and .bytes == 2097153 and
	    (.what | endswith("/big.bin")) and (.stack.frames | length) > 0)] | length == 1) and
	([.network.events[] | select(.op == "http" and .error == "HTTP status 404" and .status == 404)] | length == 1) and
	([.network.http[].path | select(test("secret"))] | length == 0)' "$HS_TMP/easy.json" >/dev/null ||
	fail "easy: large/404 flags or events wrong: $(jq -c '.network | del(.endpoints) | del(.events[].stack)' "$HS_TMP/easy.json")"

# 2. POST.
under_agent "$APP" easy --post hello "$U/small.bin" >"$HS_TMP/post.out" || fail "netcurl POST failed"
p=$(exited_pid 2)
once_json --target "$p" >"$HS_TMP/post.json"
check_rows "$HS_TMP/post.json" "$HS_TMP/post.out" POST
jq -e '.network.http[0] | .method == "POST" and .status == 501 and .bytes_out == 5' "$HS_TMP/post.json" \
	>/dev/null || fail "POST row wrong: $(jq -c .network.http "$HS_TMP/post.json")"

# 3. multi.
under_agent "$APP" multi "$U/small.bin" "$U/big.bin" >"$HS_TMP/multi.out" || fail "netcurl multi failed"
[ "$(wc -l <"$HS_TMP/multi.out")" -eq 2 ] || fail "netcurl multi printed $(cat "$HS_TMP/multi.out")"
p=$(exited_pid 3)
once_json --target "$p" >"$HS_TMP/multi.json"
check_rows "$HS_TMP/multi.json" "$HS_TMP/multi.out" GET

# 4. the large-response threshold, set while the program waits.
spawn env ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" HOOKSCOPE_SOCKET=$HS_SOCK LD_PRELOAD=$HS_PRELOAD \
	"$APP" easy --wait "$HS_TMP/go" "$U/big.bin" >/dev/null
wait_for 20 jq_once '[.targets[] | select(.name == "netcurl" and .state == "live")] | length == 1'
p=$(once_json | jq -e '[.targets[] | select(.name == "netcurl" and .state == "live")][0].pid')
"$O/hookscope" --target "$p" --cmd "threshold net-large 4096" "ws://127.0.0.1:$HS_PORT" >/dev/null ||
	fail "threshold net-large refused"
wait_for 20 jq_once '.network.large_bytes == 4194304' --target "$p"
touch "$HS_TMP/go"
wait_for 20 jq_once '.network.http[0].requests == 1' --target "$p"
jq_once '.network.http[0].large == 0 and .network.http[0].bytes_in == 2097153 and
	([.network.events[] | select(.large)] | length == 0)' --target "$p" >/dev/null ||
	fail "a 2 MiB response is large under a 4 MiB threshold"
stop_daemon
echo "ok"
