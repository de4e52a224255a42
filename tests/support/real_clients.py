"""The real Claude Code and Codex CLIs, installed from npm and run hermetically.

This is a test-support module, not a test file.

:func:`cli_bin` installs the pinned CLIs (:data:`CLIS`) with ``npm install`` into
``.cache/clis`` of the repository (gitignored; ``$LITELLM_HYGIENE_CLI_CACHE`` overrides
it) when they are missing; npm's own cache keeps a reinstall quick. :class:`Recorder`
sits between a CLI and the LiteLLM proxy on 127.0.0.1: it forwards every request and
streams every answer through unchanged, and records what the CLI sent and the status and
``x-litellm-hygiene-*`` headers it got back. :func:`run_cli` runs one CLI command with
HOME, config dirs and the working dir in temp dirs and every outbound HTTP(S) proxy
variable pointing at a closed loopback port (only loopback is exempt), so nothing of
the machine leaks in and nothing leaves it.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.support.proxy_server import offline_proxies

__all__ = [
    "CLIS",
    "CliRun",
    "Exchange",
    "Recorder",
    "cli_bin",
    "hermetic_env",
    "run_cli",
]

CLIS = {"@anthropic-ai/claude-code": "2.1.197", "@openai/codex": "0.171.0"}
"""The npm packages and the exact versions the tests run (README: Claude Code and Codex)."""

_ROOT = Path(__file__).resolve().parents[2]
_NPM_TIMEOUT = 600.0
_CLI_TIMEOUT = 180.0


def _cache_dir() -> Path:
    return Path(os.environ.get("LITELLM_HYGIENE_CLI_CACHE") or _ROOT / ".cache" / "clis")


def _installed(prefix: Path) -> bool:
    for package, version in CLIS.items():
        manifest = prefix / "node_modules" / package / "package.json"
        try:
            if json.loads(manifest.read_text(encoding="utf-8"))["version"] != version:
                return False
        except (OSError, ValueError, KeyError):
            return False
    return all((prefix / "node_modules" / ".bin" / name).exists() for name in ("claude", "codex"))


def cli_bin() -> Path | str:
    """``node_modules/.bin`` holding ``claude`` and ``codex``, or why they cannot run.

    Returns:
        The directory, or a sentence (node or npm missing) for the test to skip with.

    Raises:
        RuntimeError: ``npm install`` failed (its output in the message).
    """
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        return f"{' and '.join(missing)} not found: the real-client tests need Node.js and npm"
    prefix = _cache_dir()
    if not _installed(prefix):
        prefix.mkdir(parents=True, exist_ok=True)
        packages = [f"{name}@{version}" for name, version in CLIS.items()]
        command = ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix)]
        done = subprocess.run(
            [*command, *packages],
            capture_output=True,
            text=True,
            timeout=_NPM_TIMEOUT,
            check=False,
        )
        if done.returncode != 0 or not _installed(prefix):
            raise RuntimeError(f"npm install {' '.join(packages)} failed:\n{done.stderr[-4000:]}")
    return prefix / "node_modules" / ".bin"


@dataclass(frozen=True)
class Exchange:
    """One request a CLI sent through the :class:`Recorder`, and what it got back.

    Attributes:
        method: The HTTP method.
        path: The path and query string.
        request_headers: The CLI's headers, names lower-cased.
        body: The CLI's JSON body (``None`` when empty or not JSON).
        status: The proxy's status.
        hygiene: The proxy's ``x-litellm-hygiene-*`` headers, names lower-cased.
        answer: The start of the proxy's answer (for errors).
    """

    method: str
    path: str
    request_headers: dict[str, str]
    body: Any
    status: int
    hygiene: dict[str, str]
    answer: str


class _Forwarder(BaseHTTPRequestHandler):
    server: _RecorderServer

    def log_message(self, format: str, *args: Any) -> None:
        """Keep the test output quiet."""

    def do_GET(self) -> None:
        self._forward("GET")

    def do_POST(self) -> None:
        self._forward("POST")

    def _forward(self, method: str) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
        upstream = http.client.HTTPConnection("127.0.0.1", self.server.upstream_port, timeout=300)
        try:
            upstream.request(method, self.path, body=raw or None, headers=headers)
            reply = upstream.getresponse()
            self.send_response(reply.status)
            for name, value in reply.getheaders():
                if name.lower() not in _HOP:
                    self.send_header(name, value)
            self.send_header("connection", "close")
            self.end_headers()
            first = b""
            while chunk := reply.read1(65536):
                first = first or chunk
                self.wfile.write(chunk)
                self.wfile.flush()
        finally:
            upstream.close()
        self.server.record(
            Exchange(
                method=method,
                path=self.path,
                request_headers={k.lower(): v for k, v in self.headers.items()},
                body=_json(raw),
                status=reply.status,
                hygiene={
                    k.lower(): v
                    for k, v in reply.getheaders()
                    if k.lower().startswith("x-litellm-hygiene")
                },
                answer=first[:2000].decode("utf-8", "replace"),
            )
        )


_HOP = frozenset(
    {"connection", "keep-alive", "transfer-encoding", "content-length", "host", "accept-encoding"}
)
"""Hop-by-hop headers, and those the forwarder sets itself (it asks for no compression,
so what it records is readable)."""


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None


class _RecorderServer(ThreadingHTTPServer):
    daemon_threads = True
    upstream_port: int
    record: Callable[[Exchange], None]


class Recorder:
    """A recording pass-through from a CLI to the proxy on ``upstream_port``."""

    def __init__(self, upstream_port: int) -> None:
        self.exchanges: list[Exchange] = []
        self._lock = threading.Lock()
        self._server = _RecorderServer(("127.0.0.1", 0), _Forwarder)
        self._server.upstream_port = upstream_port
        self._server.record = self._record
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def _record(self, exchange: Exchange) -> None:
        with self._lock:
            self.exchanges.append(exchange)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Recorder:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


def hermetic_env(home: Path, extra: Mapping[str, str]) -> dict[str, str]:
    """A CLI's whole environment: PATH, a temp HOME, no proxy but a dead one, ``extra``."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "TMPDIR": str(home / "tmp"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
    } | offline_proxies()
    (home / "tmp").mkdir(parents=True, exist_ok=True)
    return env | dict(extra)


@dataclass(frozen=True)
class CliRun:
    """One CLI command's outcome."""

    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    def describe(self) -> str:
        """The command and the end of its output, for an assertion message."""
        return (
            f"{' '.join(self.args)} -> {self.returncode}\n"
            f"stdout: {self.stdout[-3000:]}\nstderr: {self.stderr[-3000:]}"
        )


def run_cli(
    args: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    interrupt_when: Callable[[], bool] | None = None,
) -> CliRun:
    """Run ``args`` to the end (stdin closed), or SIGINT it once ``interrupt_when()`` holds.

    The CLI runs in its own process group; a CLI still running after the timeout, or
    after an interrupt's grace period, is killed by that group's id.
    """
    process = subprocess.Popen(
        list(args),
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    if interrupt_when is not None:
        deadline = time.monotonic() + _CLI_TIMEOUT
        while process.poll() is None and not interrupt_when() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.0)  # let the tool start
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)
    try:
        stdout, stderr = process.communicate(timeout=_CLI_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
    return CliRun(tuple(args), process.returncode, stdout, stderr)
