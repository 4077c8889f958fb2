"""Real servers on 127.0.0.1 for the delivery tests: ``StubServer`` answers HTTP from a script and
records every request (method, path, headers, JSON body); ``RawServer`` writes raw bytes, for
servers that break HTTP or never finish. No network beyond the loopback is touched."""

from __future__ import annotations

import json
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased (HTTP header names are case-insensitive)
    body: Any


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


class StubServer:
    """``script`` is consumed in order; when it runs out, ``default`` answers."""

    def __init__(self, default: Reply | None = None):
        self.requests: list[Recorded] = []
        self.script: list[Reply] = []
        self.default = default or Reply(200, {"ok": True, "result": {"message_id": 1}})
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw.decode("utf-8"))
                except ValueError:
                    body = raw
                stub.requests.append(Recorded("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                reply = stub.script.pop(0) if stub.script else stub.default
                payload = json.dumps(reply.body).encode("utf-8")
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):  # keep test output quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def __enter__(self) -> StubServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


class RawServer:
    """A TCP server on 127.0.0.1 for servers that break HTTP: each connection's request is read
    (headers and ``Content-Length`` body), then ``respond(conn, stopping)`` writes whatever it likes
    — a bad status line, endless headers, a body trickled a byte at a time. ``stopping`` is set when
    the server shuts down, so a slow ``respond`` can end. ``connections`` counts the requests."""

    def __init__(self, respond):
        self.respond = respond
        self.connections = 0
        self.stopping = threading.Event()
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.05)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.connections += 1
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.settimeout(10)
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    head += chunk
                header, _, body = head.partition(b"\r\n\r\n")
                length = next((int(line.split(b":", 1)[1]) for line in header.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                while len(body) < length:
                    body += conn.recv(65536)
                self.respond(conn, self.stopping)
            except OSError:  # the client gave up (what several tests want it to do)
                pass

    def __enter__(self) -> RawServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopping.set()
        self.thread.join(timeout=5)
        self.sock.close()


def trickle(head: bytes, every: float = 0.1):
    """A ``RawServer`` responder that sends ``head`` and then one byte every ``every`` seconds for as
    long as the client listens (a server that keeps each read alive but never finishes)."""

    def respond(conn: socket.socket, stopping: threading.Event) -> None:
        conn.sendall(head)
        while not stopping.wait(every):
            conn.sendall(b"x")

    return respond
