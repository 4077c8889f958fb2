"""A real HTTP server on 127.0.0.1 for the delivery tests: it answers from a script and records
every request (method, path, headers, JSON body). No network beyond the loopback is touched."""

from __future__ import annotations

import json
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

    def __enter__(self) -> "StubServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
