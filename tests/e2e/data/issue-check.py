#!/usr/bin/env python3
"""issue-check.py SYSLOG_RAW RECEIVED STORE_DIR TYPE... - checks what the issue
sinks delivered, from the outside: the syslog datagrams are RFC 5424 messages
with hookscope's structured data (parsed here by the RFC's grammar), each
issue of a process once; every
issue in syslog arrived once at the HTTP receiver, in raise order (seq), with
the documented keys; every store file is an issue; each TYPE was seen."""
import json
import os
import re
import sys

raw_path, recv_path, store, types = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
KEYS = {"id", "seq", "type", "severity", "over", "value", "threshold", "unit", "count",
        "occurrence", "first_ms", "last_ms", "pid", "exe", "build_id", "tid", "thread",
        "title", "where", "figures", "stack"}
SEVERITIES = {"minor", "major", "critical"}
PARAM = r'([a-z_]+)="((?:[^"\\\]]|\\["\\\]])*)"'
MSG = re.compile(r'^<(\d{1,3})>1 (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) (\S+) hookscoped (\d+) '
                 r'([!-~]{1,32}) \[hookscope@32473((?: ' + PARAM + r')+)\] (.+)$')


def die(msg):
    print("issue-check: " + msg, file=sys.stderr)
    sys.exit(1)


raw = open(raw_path, encoding="utf-8").read()
msgs = [m for m in re.split(r'(?=<\d{1,3}>1 \d{4}-)', raw) if m]
if not msgs:
    die("no syslog message")
logged = {}
for m in msgs:
    g = MSG.match(m)
    if not g:
        die("not an RFC 5424 hookscope message: %r" % m[:200])
    pri = int(g.group(1))
    if pri // 8 != 3 or pri % 8 not in (2, 3, 4):
        die("PRI %d: expected facility daemon, severity crit/err/warning" % pri)
    sd = {k: re.sub(r'\\(.)', r'\1', v) for k, v in re.findall(PARAM, g.group(6))}
    for k in ("id", "type", "severity", "pid", "exe", "tid", "where", "value", "threshold",
              "unit", "count", "seq"):
        if k not in sd:
            die("syslog message without %s: %r" % (k, m[:200]))
    if sd["type"] != g.group(5) or sd["severity"] not in SEVERITIES:
        die("MSGID/severity wrong: %r" % m[:200])
    seq = int(sd["seq"])
    if seq in logged:
        die("seq %d logged twice" % seq)
    if (sd["pid"], sd["id"]) in {(x["pid"], x["id"]) for x in logged.values()}:
        die("issue %s of pid %s raised twice" % (sd["id"], sd["pid"]))
    logged[seq] = sd

got = []
for line in open(recv_path, encoding="utf-8"):
    r = json.loads(line)
    b = r["body"]
    if r["path"] != "/v1/issues" or r["type"] != "application/json":
        die("upload to %s as %s" % (r["path"], r["type"]))
    if r["auth"] != "Bearer issue-test-token-0123456789":
        die("upload without the access token: %r" % r["auth"])
    missing = KEYS - set(b)
    if missing:
        die("uploaded issue without %s" % sorted(missing))
    got.append(b)
seqs = [b["seq"] for b in got]
if len(set(seqs)) != len(seqs):
    die("an issue was uploaded twice: %s" % seqs)
if seqs != sorted(seqs):
    die("uploads out of raise order: %s" % seqs)
# raised just before the daemon stopped: still queued in the store, not lost
qdir = os.path.join(store, "upload")
pending = {int(n[:-5]) for n in os.listdir(qdir) if n.endswith(".json")} if os.path.isdir(qdir) else set()
if pending & set(seqs):
    die("sent and still queued: %s" % sorted(pending & set(seqs)))
if set(seqs) | pending != set(logged):
    die("uploaded %s, queued %s, logged %s" % (sorted(seqs), sorted(pending), sorted(logged)))
for b in got:
    sd = logged[b["seq"]]
    if (b["id"], b["type"], str(b["pid"])) != (sd["id"], sd["type"], sd["pid"]):
        die("syslog and upload disagree on seq %d" % b["seq"])
seen = {b["type"] for b in got}
for t in types:
    if t not in seen:
        die("no %s issue (seen %s)" % (t, sorted(seen)))
for name in os.listdir(store):
    if not name.endswith(".json"):
        continue
    i = json.load(open(os.path.join(store, name)))
    if name != "%012d-%s.json" % (i["seq"], i["id"]) or KEYS - set(i):
        die("store file %s is not its issue" % name)
print("ok: %d issues logged and uploaded once each, in order; types %s" % (len(seqs), sorted(seen)))
