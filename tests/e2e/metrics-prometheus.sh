# metrics-prometheus.sh - a real Prometheus server (own config and storage
# in the test's temp dir, on a free loopback port) scrapes hookscoped every
# second and answers an HTTP API query for the demo's FPS: the value must
# be the one hookscoped itself shows (about 55: 60 Hz with every 30th frame
# late) and the target's labels must come through.
. tests/e2e/lib.sh
. tests/e2e/data/report-demo.sh
command -v prometheus >/dev/null || fail "prometheus is not installed (run 'make deps')"
command -v curl >/dev/null || fail "curl is not installed (run 'make deps')"
start_report_demo
PROM_PORT=$(free_port)
cat >"$HS_TMP/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: hookscope
    static_configs:
      - targets: ['127.0.0.1:$HS_PORT']
YML
spawn prometheus --config.file="$HS_TMP/prometheus.yml" --storage.tsdb.path="$HS_TMP/prom-data" \
	--web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn >"$HS_TMP/prometheus.log" 2>&1
PROM_PID=$SPAWNED
prom_ready() { curl -sf "http://127.0.0.1:$PROM_PORT/-/ready"; }
wait_for 60 prom_ready
query() {
	curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1"
}
fps_known() {
	query "hookscope_fps{pid=\"$DEMO_PID\",stream=\"demo\"}" >"$HS_TMP/q.json" &&
		jq -e '.status == "success" and (.data.result | length) == 1' "$HS_TMP/q.json"
}
wait_until 60 fps_known || fail "Prometheus never had hookscope_fps: $(tail -5 "$HS_TMP/prometheus.log")"
v=$(jq -r '.data.result[0].value[1]' "$HS_TMP/q.json")
labels=$(jq -c '.data.result[0].metric' "$HS_TMP/q.json")
awk -v f="$v" 'BEGIN {exit !(f >= 40 && f <= 70)}' || fail "Prometheus says the demo's FPS is $v"
own=$(jq '.fps.streams[] | select(.name == "demo") | .fps' "$HS_TMP/frame.json")
echo "$labels" | jq -e '.job == "hookscope" and .target == "demo" and .api == "app"' >/dev/null ||
	fail "labels lost: $labels"
# The scrape target is up and the scrape had no errors.
query 'up{job="hookscope"}' | jq -e '.data.result[0].value[1] == "1"' >/dev/null || fail "target not up"
kill -TERM "$PROM_PID"
echo "ok: Prometheus 127.0.0.1:$PROM_PORT scraped hookscoped; hookscope_fps = $v (hookscoped's own frame said $own), labels $labels"
