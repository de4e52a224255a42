"""A real, throwaway ``redis-server`` on 127.0.0.1 for tests of the shared store.

Faking Redis would test the fake; a real server on a free loopback port, with no
persistence, in a temp dir, is cheap and also lets a test stop it mid-way ("Redis went
down") and start it again on the same port. Tests skip with a clear reason when the
binary is missing (``.ci/run`` installs Debian's ``redis-server``).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

__all__ = ["RedisServer", "redis_server_or_skip"]

_STARTUP_TIMEOUT = 10.0
_STOP_TIMEOUT = 10.0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _answers_ping(port: int, password: str | None) -> bool:
    command = b"PING\r\n" if password is None else f"AUTH {password}\r\nPING\r\n".encode()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(command)
            reply = b""
            while b"PONG" not in reply:
                chunk = sock.recv(256)
                if not chunk:
                    return False
                reply += chunk
            return True
    except OSError:
        return False


class RedisServer:
    """One ``redis-server`` process, stoppable and restartable on the same port."""

    def __init__(self, binary: str, password: str | None = None) -> None:
        self.binary = binary
        self.password = password
        self.host = "127.0.0.1"
        self.port = _free_port()
        self._dir = tempfile.TemporaryDirectory(prefix="litellm-hygiene-redis-")
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """A ``redis://`` url for this server (with the password, when it has one)."""
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}{self.host}:{self.port}/0"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        """Start (again) on this server's port; returns once it answers PING."""
        if self.running:
            return
        args = [self.binary, "--port", str(self.port), "--bind", self.host]
        args += ["--save", "", "--appendonly", "no", "--dir", self._dir.name]
        if self.password is not None:
            args += ["--requirepass", self.password]
        self._process = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self._dir.name
        )
        deadline = time.monotonic() + _STARTUP_TIMEOUT
        while not _answers_ping(self.port, self.password):
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.02)

    def stop(self) -> None:
        """SIGTERM the server by PID and wait for it to exit (SIGKILL if it hangs)."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=_STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def close(self) -> None:
        """Stop the server and remove its directory."""
        self.stop()
        self._dir.cleanup()


def _binary() -> str | None:
    found = shutil.which("redis-server")
    if found is None and Path("/usr/bin/redis-server").exists():
        return "/usr/bin/redis-server"
    return found


@contextmanager
def redis_server_or_skip(password: str | None = None) -> Iterator[RedisServer]:
    """A running server for the ``with`` block; skips the test when Redis is not installed."""
    binary = _binary()
    if binary is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    server = RedisServer(binary, password)
    try:
        for attempt in range(3):
            try:
                server.start()
                break
            except RuntimeError:
                # Another process may have taken the free port; try a fresh one.
                if attempt == 2:
                    raise
                server.port = _free_port()
        yield server
    finally:
        server.close()
