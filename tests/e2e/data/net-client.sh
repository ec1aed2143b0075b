# net-client.sh - the HTTP client of the network tests (sourced after lib.sh).
#
# net_fetch RUNNER OUT URL [insecure]: fetch URL into OUT with libcurl under
# RUNNER (a command prefix: the agent preloaded, strace...) and print what
# libcurl measured: "STATUS BYTES TOTAL_US CONNECT_US APPCONNECT_US RESULT".
# The client is Debian's curl (its -w figures); under a sanitizer build it is
# tests/apps/netcurl, built with the sanitizer, because the sanitizer's
# runtime, preloaded before the agent, hangs Debian's curl and wget in their
# first setlocale() (with or without the agent).  NET_CLIENT is its target
# name.
if [ -z "$HS_SAN_RT" ]; then
	NET_CLIENT=curl
	command -v curl >/dev/null || fail "curl is not installed (a test dependency: make deps)"
else
	NET_CLIENT=netcurl
fi
[ -x "$O/apps/netcurl" ] || fail "$O/apps/netcurl is not built (make)"
net_fetch() {
	local run=$1 out=$2 url=$3 k=${4:-}
	if [ "$NET_CLIENT" = curl ]; then
		$run curl -s ${k:+-k} -o "$out" \
			-w '%{http_code} %{size_download} %{time_total} %{time_connect} %{time_appconnect} %{exitcode}\n' \
			"$url" | awk '{ printf "%s %s %.0f %.0f %.0f %s\n", $1, $2, $3 * 1e6, $4 * 1e6, $5 * 1e6, $6 }'
	else
		$run "$O/apps/netcurl" easy ${k:+--insecure} --out "$out" "$url" |
			awk '{ print $2, $3, $5, $7, $8, $6 }'
	fi
}
