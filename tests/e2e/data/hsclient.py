# hsclient.py - a hookscope client written from doc/protocol.md alone, in
# Python with the standard library only: the websocket upgrade (RFC 6455),
# frames, and the msgpack subset the protocol uses.  Used by
# protocol-client.sh and protocol-keys.sh; it shares no code with the C tree,
# so it checks the document, not the implementation's idea of itself.
import base64
import hashlib
import os
import socket
import struct

WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


# ---- msgpack ----

class Bin(bytes):
    """A msgpack bin (bytes are packed as bin, str as str)."""


def pack(o):
    if o is None:
        return b"\xc0"
    if o is True:
        return b"\xc3"
    if o is False:
        return b"\xc2"
    if isinstance(o, int):
        if 0 <= o < 0x80:
            return bytes([o])
        if -32 <= o < 0:
            return struct.pack("b", o)
        if o >= 0:
            for fmt, tag in ((">B", 0xcc), (">H", 0xcd), (">I", 0xce), (">Q", 0xcf)):
                try:
                    return bytes([tag]) + struct.pack(fmt, o)
                except struct.error:
                    pass
        for fmt, tag in ((">b", 0xd0), (">h", 0xd1), (">i", 0xd2), (">q", 0xd3)):
            try:
                return bytes([tag]) + struct.pack(fmt, o)
            except struct.error:
                pass
        raise ValueError("integer out of range")
    if isinstance(o, float):
        return b"\xcb" + struct.pack(">d", o)
    if isinstance(o, str):
        b = o.encode()
        n = len(b)
        if n < 32:
            return bytes([0xa0 | n]) + b
        if n < 0x100:
            return b"\xd9" + bytes([n]) + b
        if n < 0x10000:
            return b"\xda" + struct.pack(">H", n) + b
        return b"\xdb" + struct.pack(">I", n) + b
    if isinstance(o, (bytes, bytearray)):
        n = len(o)
        if n < 0x100:
            return b"\xc4" + bytes([n]) + bytes(o)
        if n < 0x10000:
            return b"\xc5" + struct.pack(">H", n) + bytes(o)
        return b"\xc6" + struct.pack(">I", n) + bytes(o)
    if isinstance(o, (list, tuple)):
        n = len(o)
        head = bytes([0x90 | n]) if n < 16 else (b"\xdc" + struct.pack(">H", n)
                                                 if n < 0x10000 else b"\xdd" + struct.pack(">I", n))
        return head + b"".join(pack(x) for x in o)
    if isinstance(o, dict):
        n = len(o)
        head = bytes([0x80 | n]) if n < 16 else (b"\xde" + struct.pack(">H", n)
                                                 if n < 0x10000 else b"\xdf" + struct.pack(">I", n))
        return head + b"".join(pack(k) + pack(v) for k, v in o.items())
    raise TypeError("cannot pack %r" % type(o))


def unpack(data):
    """One msgpack object; trailing bytes are an error (doc: exactly one)."""
    o, off = _unpack(data, 0)
    if off != len(data):
        raise ValueError("trailing bytes after the msgpack object")
    return o


def _take(data, off, n):
    if off + n > len(data):
        raise ValueError("truncated msgpack")
    return data[off:off + n], off + n


def _unpack(d, off):
    b, off = _take(d, off, 1)
    t = b[0]
    if t < 0x80:
        return t, off
    if t >= 0xe0:
        return t - 0x100, off
    if 0x80 <= t <= 0x8f:
        return _map(d, off, t & 0x0f)
    if 0x90 <= t <= 0x9f:
        return _arr(d, off, t & 0x0f)
    if 0xa0 <= t <= 0xbf:
        s, off = _take(d, off, t & 0x1f)
        return s.decode(), off
    simple = {0xc0: None, 0xc2: False, 0xc3: True}
    if t in simple:
        return simple[t], off
    lens = {0xc4: (">B", 1, "bin"), 0xc5: (">H", 2, "bin"), 0xc6: (">I", 4, "bin"),
            0xd9: (">B", 1, "str"), 0xda: (">H", 2, "str"), 0xdb: (">I", 4, "str"),
            0xdc: (">H", 2, "arr"), 0xdd: (">I", 4, "arr"),
            0xde: (">H", 2, "map"), 0xdf: (">I", 4, "map")}
    if t in lens:
        fmt, w, kind = lens[t]
        raw, off = _take(d, off, w)
        n = struct.unpack(fmt, raw)[0]
        if kind == "arr":
            return _arr(d, off, n)
        if kind == "map":
            return _map(d, off, n)
        s, off = _take(d, off, n)
        return (Bin(s), off) if kind == "bin" else (s.decode(), off)
    nums = {0xca: ">f", 0xcb: ">d", 0xcc: ">B", 0xcd: ">H", 0xce: ">I", 0xcf: ">Q",
            0xd0: ">b", 0xd1: ">h", 0xd2: ">i", 0xd3: ">q"}
    if t in nums:
        raw, off = _take(d, off, struct.calcsize(nums[t]))
        return struct.unpack(nums[t], raw)[0], off
    raise ValueError("msgpack type 0x%02x is not used by the protocol" % t)


def _arr(d, off, n):
    out = []
    for _ in range(n):
        o, off = _unpack(d, off)
        out.append(o)
    return out, off


def _map(d, off, n):
    out = {}
    for _ in range(n):
        k, off = _unpack(d, off)
        v, off = _unpack(d, off)
        out[k] = v
    return out, off


# ---- HTTP and websocket ----

class Refused(Exception):
    """The server answered the upgrade with something other than 101."""

    def __init__(self, status_line, headers, body):
        Exception.__init__(self, status_line)
        self.status_line, self.headers, self.body = status_line, headers, body


def _read_http(sock):
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionError("connection closed without an HTTP answer "
                                  "(got %r)" % buf)
        buf += chunk
    head, rest = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    return lines[0], headers, rest


def http_get(host, port, path, headers=None, timeout=5):
    """A plain HTTP/1.1 GET: (status line, headers, body)."""
    s = socket.create_connection((host, port), timeout=timeout)
    try:
        req = "GET %s HTTP/1.1\r\nHost: %s:%d\r\nConnection: close\r\n" % (path, host, port)
        for k, v in (headers or {}).items():
            req += "%s: %s\r\n" % (k, v)
        s.sendall((req + "\r\n").encode())
        status, hdrs, body = _read_http(s)
        want = int(hdrs.get("content-length", "-1"))
        while want < 0 or len(body) < want:
            chunk = s.recv(65536)
            if not chunk:
                break
            body += chunk
        return status, hdrs, body
    finally:
        s.close()


class Client:
    """One websocket connection speaking the hookscope protocol."""

    def __init__(self, host, port, token=None, protocols="hookscope", scheme="Bearer",
                 timeout=10):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.rest = b""
        key = base64.b64encode(os.urandom(16)).decode()
        req = ("GET / HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
               "Sec-WebSocket-Version: 13\r\n" % (host, port, key))
        if protocols:
            req += "Sec-WebSocket-Protocol: %s\r\n" % protocols
        if token is not None:
            req += "Authorization: %s %s\r\n" % (scheme, token)
        self.sock.sendall((req + "\r\n").encode())
        status, headers, rest = _read_http(self.sock)
        if status.split()[1:2] != ["101"]:
            want = int(headers.get("content-length", "0"))
            while len(rest) < want:
                chunk = self.sock.recv(4096)
                if not chunk:
                    break
                rest += chunk
            self.sock.close()
            raise Refused(status, headers, rest)
        accept = base64.b64encode(hashlib.sha1(key.encode() + WS_GUID).digest()).decode()
        if headers.get("sec-websocket-accept") != accept:
            raise ValueError("bad Sec-WebSocket-Accept")
        self.protocol = headers.get("sec-websocket-protocol")
        self.rest = rest
        self.next_id = 1

    def close(self):
        try:
            self._send_frame(0x8, struct.pack(">H", 1000))
        except OSError:
            pass
        self.sock.close()

    def _send_frame(self, opcode, payload, fin=True):
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([(0x80 if fin else 0) | opcode])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 0x10000:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(head + mask + body)

    def send_binary(self, payload):
        self._send_frame(0x2, payload)

    def send_text(self, text):
        self._send_frame(0x1, text.encode())

    def _recv_exact(self, n):
        while len(self.rest) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed")
            self.rest += chunk
        out, self.rest = self.rest[:n], self.rest[n:]
        return out

    def recv_message(self):
        """(opcode, payload) of the next whole data message; pings answered.
        A close frame raises ConnectionError with its code and reason."""
        data, opcode = b"", None
        while True:
            b0, b1 = self._recv_exact(2)
            op, n = b0 & 0x0f, b1 & 0x7f
            if n == 126:
                n = struct.unpack(">H", self._recv_exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._recv_exact(8))[0]
            payload = self._recv_exact(n)       # server frames are not masked
            if op == 0x9:
                self._send_frame(0xA, payload)
                continue
            if op == 0xA:
                continue
            if op == 0x8:
                code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else 0
                raise ConnectionError("closed %d %s" % (code, payload[2:].decode(errors="replace")))
            if opcode is None:
                opcode = op
            data += payload
            if b0 & 0x80:
                return opcode, data

    def recv(self):
        """The next daemon message as a dict (it must be a binary message)."""
        op, data = self.recv_message()
        if op != 0x2:
            raise ValueError("daemon sent a non-binary message (opcode %d)" % op)
        m = unpack(data)
        if not isinstance(m, dict) or m.get("v") != 1 or "t" not in m:
            raise ValueError("not a version-1 message: %r" % (m,))
        return m

    def recv_type(self, t, limit=200):
        """Skip messages until one of type t (frames keep coming)."""
        for _ in range(limit):
            m = self.recv()
            if m["t"] == t:
                return m
        raise ValueError("no %s message in %d" % (t, limit))

    def command(self, cmd, *args, id=None):
        """Send cmd, return its reply (frames in between are skipped)."""
        if id is None:
            id = self.next_id
            self.next_id += 1
        self.send_binary(pack({"v": 1, "t": "cmd", "id": id, "cmd": cmd, "args": list(args)}))
        for _ in range(200):
            m = self.recv()
            if m["t"] == "reply" and m.get("id") == id:
                return m
            if m["t"] == "error":
                raise ValueError("error instead of a reply: %s" % m.get("msg"))
        raise ValueError("no reply to %s" % cmd)
