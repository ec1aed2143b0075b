# forward.sh - the pipeline in the shape users run it on a device: the arm64
# daemon serving the arm64 demo (--scenario all: every collector), both
# under qemu-aarch64, reached from the host's x86-64 hookscope through a
# forwarded port (socat standing in for `adb forward`):
#   1. `hookscope --once --json` (x86-64) through the forward sees the hot
#      function, FPS streams with jank, UI-thread blocks with a whole
#      symbolized stack (function, file and line of load_config_sync), the
#      24 decoder threads, IPC endpoints and power resources;
#   2. the interactive x86-64 TUI in tmux shows them.
# HS_HOST_O: the native build (default build/; make builds it).
. tests/e2e/lib.sh

HOST=${HS_HOST_O:-build}
case $HOST in /*) ;; *) HOST=$(pwd)/$HOST ;; esac
file -L "$HOST/hookscope" 2>/dev/null | grep -q 'x86-64' ||
	fail "no x86-64 hookscope in $HOST: build the native tree first (make)"
command -v socat >/dev/null || fail "socat is not installed (run 'make deps')"
command -v tmux >/dev/null || fail "tmux is not installed (run 'make deps')"
file -L "$O/hookscoped" | grep -q 'ARM aarch64' || fail "$O/hookscoped is not an arm64 program"
TM_SOCK="hookscope-arm64-forward-$$"
trap 'tm kill-server 2>/dev/null; hs_cleanup' EXIT

start_daemon run -- "$O/apps/demo" --scenario all
FWD=$(free_port)
spawn socat "TCP-LISTEN:$FWD,bind=127.0.0.1,reuseaddr,fork" "TCP:127.0.0.1:$HS_PORT"
host_json() { "$HOST/hookscope" --once --json "$@" "ws://127.0.0.1:$FWD"; }
host_jq() { local f=$1; shift; host_json "$@" | jq -e "$f"; }

# 1. every collector, through the forward.
wait_for 90 host_jq '(.blocks.list | length) >= 2 and .threading.created >= 24 and
	([.fps.streams[] | select(.jank > 0)] | length) >= 1 and
	([.funcs[] | select(.name == "recompute_checksums")] | length == 1) and
	(.ipc.endpoints | length) >= 1 and (.power.resources | length) >= 1'
wait_for 60 host_jq '[.blocks.list[].stacks[].frames[] |
	select(.func == "load_config_sync" and (.file | test("demo")) and .line > 0)] | length > 0'
host_json | jq -c '{targets: [.targets[] | {pid, state, level}], fps: [.fps.streams[] | {name, jank}],
	threads: .threading.created, ipc: (.ipc.endpoints | length), power: (.power.resources | length)}'

# 2. the x86-64 TUI.
tm new-session -d -s hs -x 160 -y 50 \
	"env LANG=C.UTF-8 LC_ALL= HOOKSCOPE_STATE_DIR='$HS_TMP/state' '$HOST/hookscope' \
	ws://127.0.0.1:$FWD 2>'$HS_TMP/tui.err'; exec sleep 600"
wait_screen 60 hs grep -Eq 'UI-thread blocks: [1-9][0-9]* \(over'
wait_screen 60 hs grep -Eq 'threads: [0-9]+ live, [1-9][0-9]* created'
wait_screen 60 hs grep -Eq 'IPC: [1-9][0-9]* endpoints'
wait_screen 60 hs grep -Eq 'power: [0-9]+ held'
# the functions view (key 1) lists the demo's hot function
tm send-keys -t hs 1
wait_screen 60 hs grep -Eq 'recompute(_checksums|[a-z_]*…[a-z_]*ums)'
screen hs | head -n 25
kill -0 "$DAEMON_PID" || fail "hookscoped died"
echo "ok: the arm64 daemon and demo under qemu, every collector seen by the x86-64 hookscope and TUI through a forwarded port"
