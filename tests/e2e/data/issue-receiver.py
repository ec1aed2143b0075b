#!/usr/bin/env python3
"""issue-receiver.py PORTFILE OUT - a tiny HTTP receiver on loopback for the
upload tests: every POST body is appended to OUT as one line (compact JSON,
so the file is JSON Lines) and answered 200; anything else is a 404.  It
binds 127.0.0.1 on port 0 unless PORTFILE already holds a port (a restart
takes the same one), then writes the port to PORTFILE."""
import http.server
import json
import os
import sys

portfile, out = sys.argv[1], sys.argv[2]
port = 0
if os.path.exists(portfile):
    with open(portfile) as f:
        port = int(f.read().strip() or 0)


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        rec = {"path": self.path, "auth": self.headers.get("Authorization", ""),
               "type": self.headers.get("Content-Type", ""), "body": json.loads(body)}
        with open(out, "a") as f:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        self.send_error(404)

    def log_message(self, *args):
        pass


http.server.HTTPServer.allow_reuse_address = True
srv = http.server.HTTPServer(("127.0.0.1", port), Handler)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
