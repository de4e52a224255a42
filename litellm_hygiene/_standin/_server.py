"""The stand-in HTTP server: answers LiteLLM's real provider requests on 127.0.0.1.

Recording a cassette needs something at the other end of the wire. Instead of the real
APIs (keys, money, non-determinism) the tests point LiteLLM's ``api_base`` at this
server, which answers every request with the next reply the test script queued for that
route, and logs what it received. A request asking for a stream (``"stream": true``) on
a route that streams gets that reply as Server-Sent Events, written event by event
(:mod:`._stream`). It binds a free port on the loopback interface only, answers one
request per connection (HTTP/1.0, so no keep-alive socket outlives a test; a stream ends
when the connection closes), and :meth:`StandIn.close` joins its thread and closes its
socket.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, cast

from ._reply import Reply, Route, route_of
from ._stream import as_requested

__all__ = ["ReceivedRequest", "StandIn"]


@dataclass(frozen=True)
class ReceivedRequest:
    """One request as the stand-in received it.

    Attributes:
        method: The HTTP method.
        path: The path and query string.
        route: The route it matched, ``None`` for an unknown path.
        headers: The headers, names lower-cased.
        body: The parsed JSON body (``None`` when empty or not JSON).
    """

    method: str
    path: str
    route: Route | None
    headers: dict[str, str]
    body: Any


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # socketserver's default backlog of 5 refuses connections under a load test's
    # 50 concurrent requests (a proxy then reports "Connection error").
    request_queue_size = 256
    standin: StandIn


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Keep the test output quiet."""

    def _read_body(self) -> bytes:
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while size := int(self.rfile.readline().strip() or b"0", 16):
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            self.rfile.readline()
            return b"".join(chunks)
        return self.rfile.read(int(self.headers.get("content-length") or 0))

    def do_GET(self) -> None:
        """A listing (Gemini's ``cachedContents``): answered by the responder only."""
        self._serve("GET", None)

    def do_POST(self) -> None:
        raw = self._read_body()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        self._serve("POST", body)

    def _serve(self, method: str, body: Any) -> None:
        request = ReceivedRequest(
            method=method,
            path=self.path,
            route=route_of(self.path),
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
        )
        reply = cast(_Server, self.server).standin.answer(request)
        self.send_response(reply.status)
        for name, value in ({"content-type": reply.content_type} | reply.headers).items():
            self.send_header(name, value)
        if reply.events is None:  # a stream ends when the connection closes
            self.send_header("content-length", str(len(reply.encoded())))
        self.send_header("connection", "close")
        self.end_headers()
        for frame in reply.frames():
            self.wfile.write(frame)


class StandIn:
    """A local provider stand-in: queued replies per route, and a log of requests.

    Use as a context manager (or :meth:`start` / :meth:`close`)::

        with StandIn() as server:
            server.enqueue(anthropic.message(anthropic.text("hi")))
            await litellm.acompletion(..., api_base=server.base_url)
            server.received[0].body
    """

    def __init__(
        self,
        respond: Callable[[ReceivedRequest], Reply | None] | None = None,
        port: int = 0,
    ) -> None:
        """Create a stopped stand-in.

        Args:
            respond: Asked first for every request; a reply it returns is served instead
                of the queue's (the demo uses it to reject what the real API would,
                see :mod:`.strict`). ``None`` from it falls through to the queue.
            port: The loopback port to bind; 0 picks a free one.
        """
        self._respond = respond
        self._port = port
        self._lock = threading.Lock()
        self._queues: dict[Route, deque[Reply]] = {}
        self.received: list[ReceivedRequest] = []
        self.unanswered: list[ReceivedRequest] = []
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>`` of the running server."""
        if self._server is None:
            raise RuntimeError("the stand-in is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> StandIn:
        """Bind a free loopback port and serve in a background thread."""
        server = _Server(("127.0.0.1", self._port), _Handler)
        server.standin = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving, join the thread and close the listening socket."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> StandIn:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def enqueue(self, *replies: Reply) -> None:
        """Queue replies; each answers the next request on its own route, in order."""
        with self._lock:
            for reply in replies:
                self._queues.setdefault(reply.route, deque()).append(reply)

    def pending(self) -> dict[Route, int]:
        """Replies queued and not yet served, per route."""
        with self._lock:
            return {route: len(queue) for route, queue in self._queues.items() if queue}

    def reset(self) -> None:
        """Forget queued replies and the request log (between tests)."""
        with self._lock:
            self._queues.clear()
            self.received.clear()
            self.unanswered.clear()

    def _listing(self, request: ReceivedRequest) -> Reply:
        """A GET (Gemini's ``cachedContents`` listing): the responder's, logged, else a 404.

        A client's own look-ups the responder does not serve (a proxy asking for
        ``/v1/models``) are not requests to judge: neither logged nor answered.
        """
        chosen = self._respond(request) if self._respond is not None else None
        if chosen is None:
            body = {"error": {"message": "not found", "type": "not_found_error"}}
            return Reply(route=request.route or "chat-completions", status=404, body=body)
        self.received.append(request)
        return as_requested(request.body, chosen)

    def answer(self, request: ReceivedRequest) -> Reply:
        """Log ``request`` and pop the reply for its route (a 500 when none is queued).

        The reply is streamed when the request asks for a stream (:func:`.as_requested`).
        """
        with self._lock:
            if request.method == "GET":
                return self._listing(request)
            self.received.append(request)
            if self._respond is not None:
                chosen = self._respond(request)
                if chosen is not None:
                    return as_requested(request.body, chosen)
            queue = self._queues.get(request.route) if request.route else None
            if queue:
                return as_requested(request.body, queue.popleft())
            self.unanswered.append(request)
        message = f"litellm-hygiene stand-in: no reply queued for POST {request.path}"
        return Reply(
            route=request.route or "chat-completions",
            status=500,
            body={"error": {"message": message, "type": "standin_error"}},
        )
