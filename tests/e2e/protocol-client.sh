# protocol-client.sh - a third-party client (Python, stdlib only, written from
# doc/protocol.md: tests/e2e/data/hsclient.py) talks to a real daemon that has
# an access token: the upgrade, hello, commands and their reply ids, frames;
# and the points where the daemon and the document once differed: refused
# upgrades answered in HTTP/1.1 plain text, every subprotocol behind the token,
# unknown subprotocols answered, ids echoed on a wrong version, text messages
# refused, NUL bytes named, a lower-case "bearer", a gauge that reads 0.
. tests/e2e/lib.sh

[ -x /usr/bin/python3 ] || fail "/usr/bin/python3 is missing (the test client is Python)"
head -c 24 /dev/urandom | base64 | tr -d '\n' >"$HS_TMP/token"
start_daemon --token-file "$HS_TMP/token" run -- "$O/apps/demo" --period-ms 10

HS_TOKEN=$(cat "$HS_TMP/token") HS_PORT=$HS_PORT PYTHONPATH=tests/e2e/data \
	/usr/bin/python3 - <<'EOF' || fail "the Python client found a difference (above)"
import os, sys, time
from hsclient import Client, Refused, http_get, pack

HOST, PORT, TOKEN = "127.0.0.1", int(os.environ["HS_PORT"]), os.environ["HS_TOKEN"]
problems = []

def check(cond, what):
    if not cond:
        problems.append(what)
        print("MISMATCH:", what, file=sys.stderr)

def refused(**kw):
    """The HTTP answer to an upgrade that must be refused."""
    try:
        Client(HOST, PORT, **kw).close()
    except Refused as r:
        return r
    except (ConnectionError, OSError) as e:
        return e
    return None

def check_http_error(r, code, what):
    if not isinstance(r, Refused):
        check(False, "%s: expected an HTTP %d answer, got %r" % (what, code, r))
        return
    check(r.status_line.startswith("HTTP/1.1 %d " % code),
          "%s: status line %r, not HTTP/1.1 %d" % (what, r.status_line, code))
    check(r.headers.get("content-type", "").startswith("text/plain"),
          "%s: Content-Type %r, not text/plain" % (what, r.headers.get("content-type")))
    check(b"<" not in r.body and len(r.body) > 0, "%s: body %r is not short plain text" % (what, r.body))

# Access control: no token, a wrong one, the internal subprotocol.
check_http_error(refused(), 401, "upgrade without a token")
check_http_error(refused(token="wrong-token-0123456789"), 401, "upgrade with a wrong token")
check_http_error(refused(protocols="hs-raw"), 401, "hs-raw without a token")
check_http_error(refused(protocols="hs-raw", token=TOKEN), 400, "hs-raw with the token")
check_http_error(refused(protocols="nosuch, other", token=TOKEN), 400, "only unknown subprotocols")
st, hd, body = http_get(HOST, PORT, "/metrics")
check(st.startswith("HTTP/1.1 401 "), "plain HTTP without a token: %r" % st)

# The scheme is case-insensitive; no subprotocol at all is accepted too.
for scheme in ("bearer", "BEARER"):
    try:
        Client(HOST, PORT, token=TOKEN, scheme=scheme).close()
    except Exception as e:
        check(False, "Authorization scheme %r refused: %r" % (scheme, e))
try:
    Client(HOST, PORT, token=TOKEN, protocols=None).close()
except Exception as e:
    check(False, "an upgrade without a subprotocol refused: %r" % e)

c = Client(HOST, PORT, token=TOKEN, protocols="nosuch, hookscope")
check(c.protocol == "hookscope", "Sec-WebSocket-Protocol answered %r" % c.protocol)
hello = c.recv()
check(hello["t"] == "hello" and isinstance(hello.get("version"), str) and
      isinstance(hello.get("targets"), list), "first message is not a hello: %r" % hello)

# Frames decoded: wait until the demo's functions are there.
deadline = time.time() + 20
frame = None
while time.time() < deadline:
    m = c.recv()
    if m["t"] == "frame" and m.get("pid", 0) != 0 and \
            any(f.get("name") == "slow_work" for f in m.get("funcs", [])):
        frame = m
        break
check(frame is not None, "no frame with the demo's slow_work within 20 s")
pid = frame["pid"] if frame else 0

# Commands and reply ids.
r = c.command("targets", id=12345)
check(r["id"] == 12345 and r["ok"] is True and str(pid) in r["msg"], "targets reply: %r" % r)
r = c.command("sort", "calls", id=7)
check(r["id"] == 7 and r["ok"] is True, "sort calls: %r" % r)
r = c.command("top", "2", id=8)
check(r["id"] == 8 and r["ok"] is True, "top 2: %r" % r)
for _ in range(50):
    f = c.recv_type("frame")
    if f["sort"] == "calls" and len(f["funcs"]) <= 2:
        break
check(f["sort"] == "calls" and len(f["funcs"]) == 2 and
      f["funcs"][0]["calls"] >= f["funcs"][1]["calls"], "frame after sort/top: %r" % f["funcs"])
r = c.command("target", "auto")
check(r["ok"] is True, "target auto: %r" % r)
r = c.command("target", "0")
check(r["ok"] is True, "target 0: %r" % r)
r = c.command("filter", "x" * 256)
check(r["ok"] is True, "filter of 256 characters refused: %r" % r)
r = c.command("filter", "x" * 257)
check(r["ok"] is False and "256" in r["msg"], "filter of 257 characters: %r" % r)
r = c.command("filter", "SLOW_WORK")
check(r["ok"] is True, "filter: %r" % r)
f = c.recv_type("frame")
f = c.recv_type("frame")
check(all("slow_work" in x["name"].lower() for x in f["funcs"]) and f["funcs"],
      "filter SLOW_WORK (case folded) rows: %r" % [x["name"] for x in f["funcs"]])
c.command("filter")
r = c.command("threshold", "hold", "0.0001")
check(r["ok"] is False and "0.001" in r["msg"], "threshold hold below its range: %r" % r)
r = c.command("threshold", "hold", "300")
check(r["ok"] is True, "threshold hold 300: %r" % r)
r = c.command("threshold", "frame", "10001")
check(r["ok"] is False, "threshold frame over its range accepted: %r" % r)
r = c.command("nosuchcommand")
check(r["ok"] is False and "level" in r["msg"], "unknown command: %r" % r)

# A wrong version with a readable id: the reply carries the id.
c.send_binary(pack({"v": 2, "t": "cmd", "id": 42, "cmd": "targets"}))
m = c.recv_type("reply")
check(m.get("id") == 42 and m["ok"] is False and "version" in m["msg"], "v=2 answer: %r" % m)
# No readable id: an error message.
c.send_binary(pack({"v": 1, "t": "cmd", "cmd": "targets"}))
m = c.recv()
while m["t"] == "frame":
    m = c.recv()
check(m["t"] == "error" and "id" in m["msg"], "a command without id: %r" % m)
# A text message is refused, not decoded as msgpack; the connection stays.
c.send_text('{"v":1,"t":"cmd","id":5,"cmd":"targets"}')
m = c.recv()
while m["t"] == "frame":
    m = c.recv()
check(m["t"] == "error" and "text" in m["msg"], "a text message: %r" % m)
# A NUL byte in an argument is named as such.
r = c.command("filter", "a\0b", id=99)
check(r["id"] == 99 and r["ok"] is False and "NUL" in r["msg"], "NUL argument: %r" % r)
r = c.command("targets")
check(r["ok"] is True, "the connection is not usable after the errors: %r" % r)

# The gauge of IPC endpoints has a sample for the target, the frame's count,
# also when that is 0 (the demo makes no IPC call; a sanitizer runtime may).
r = c.command("target", str(pid))
before = len(c.recv_type("frame")["ipc"]["endpoints"])
st, hd, body = http_get(HOST, PORT, "/metrics", {"Authorization": "Bearer " + TOKEN})
after = len(c.recv_type("frame")["ipc"]["endpoints"])
lines = [l for l in body.decode().splitlines()
         if l.startswith('hookscope_ipc_endpoints{pid="%d",' % pid)]
check(st.startswith("HTTP/1.1 200") and len(lines) == 1 and
      float(lines[0].rsplit(" ", 1)[1]) in (before, after),
      "hookscope_ipc_endpoints of pid %d: %r (frames: %d, %d endpoints)" % (pid, lines, before, after))
c.close()

if problems:
    sys.exit(1)
print("ok: the Python client agrees with doc/protocol.md")
EOF
echo "ok: a client written from doc/protocol.md alone works; the documented answers hold"
