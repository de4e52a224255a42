"""Real ``litellm --config`` proxy processes on 127.0.0.1, for end-to-end tests.

This is a test-support module, not a test file.

An in-process ``litellm.proxy`` app would share one interpreter (one ``litellm.callbacks``,
one provenance store) between "instances"; a subprocess is the deployment users run:
the ``litellm`` CLI, a YAML config, our callback loaded by name, its own memory. Each
:class:`ProxyServer` writes its config into a temp dir, starts the CLI there in its own
process group, with its output in a log file that is shown when startup fails, and
stops by PID (SIGTERM to the group, SIGKILL if it hangs).

Startup is slow (importing ``litellm.proxy`` takes seconds), so :func:`running_proxies`
starts several at once and waits for all of them.

The client side: :func:`standin_config` (model groups behind ``litellm_hygiene._standin``),
:func:`proxy_client` (an OpenAI SDK client for a proxy) and :func:`chat` (one completion,
with its ``x-litellm-hygiene-*`` headers).

The environment keeps the process hermetic and off the network: the local model cost
map (no price-map fetch at import), no ``DATABASE_URL`` (no Prisma), none of the caller's
``REDIS_*``, ``LITELLM_*``, ``*_API_KEY`` or ``*_API_BASE`` variables,
``LITELLM_MODE=PRODUCTION`` (no ``.env`` file is loaded), and HTTP(S) proxy variables
pointing at a closed loopback port with only loopback exempt, so a client that honours
them fails at once on any other host. (LiteLLM 1.106's ``--telemetry`` is a no-op.)
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import openai
import yaml
from openai.types.chat import ChatCompletionMessage

__all__ = [
    "MASTER_KEY",
    "STAMP",
    "Answer",
    "ProxyServer",
    "chat",
    "hygiene_headers",
    "json_keys",
    "offline_proxies",
    "proxy_client",
    "running_proxies",
    "standin_config",
]

MASTER_KEY = "sk-test-litellm-hygiene-master"
"""The proxy's master key (the proxy refuses to start without one)."""

STAMP = "litellm_hygiene"
"""The stamp's key on a message (``litellm_hygiene.STAMP_KEY``; not imported, so proxy
tests do not import LiteLLM into the test process)."""

Json = dict[str, Any]

_STARTUP_TIMEOUT = 120.0
_STOP_TIMEOUT = 15.0
_DEAD_PROXY = "http://127.0.0.1:9"
"""Where outbound HTTP goes unless the host is loopback: the discard port, closed."""
_DROPPED_ENV_PREFIXES = ("REDIS_", "DATABASE_", "DIRECT_URL", "LITELLM_")
_DROPPED_ENV_SUFFIXES = ("_API_KEY", "_API_BASE")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _litellm_binary() -> str:
    """The ``litellm`` CLI of this interpreter's virtualenv."""
    return str(Path(sys.executable).parent / "litellm")


def proxy_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The proxy's environment: the caller's, minus keys and stores, plus offline switches."""
    source = os.environ if base is None else base
    env = {
        key: value
        for key, value in source.items()
        if not key.startswith(_DROPPED_ENV_PREFIXES) and not key.endswith(_DROPPED_ENV_SUFFIXES)
    }
    env |= {
        "LITELLM_MASTER_KEY": MASTER_KEY,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "LITELLM_MODE": "PRODUCTION",
        "LITELLM_DONT_SHOW_FEEDBACK_BOX": "true",
        "LITELLM_LOG": "INFO",
        "PYTHONUNBUFFERED": "1",
    }
    return env | offline_proxies()


def offline_proxies() -> dict[str, str]:
    """HTTP(S) proxy variables, both spellings, that send every host but loopback to a
    closed port: a client that honours them fails at once off this machine."""
    env = {
        "HTTP_PROXY": _DEAD_PROXY,
        "HTTPS_PROXY": _DEAD_PROXY,
        "ALL_PROXY": _DEAD_PROXY,
        "NO_PROXY": "127.0.0.1,localhost",
    }
    return env | {name.lower(): value for name, value in env.items()}


class ProxyServer:
    """One ``litellm --config`` process on a free loopback port.

    Attributes:
        name: A label for messages (``"A"``, ``"fail-closed"``).
        config: The proxy config, written as ``config.yaml`` in the work dir.
        env: Variables added to the hermetic environment (the config's ``os.environ/``).
        port: The port it listens on.
        workdir: Its temp dir: ``config.yaml`` and ``proxy.log``; the process's cwd.
        env: Variables added to its environment (``PROMETHEUS_MULTIPROC_DIR``).
    """

    def __init__(
        self, name: str, config: Mapping[str, Any], env: Mapping[str, str] | None = None
    ) -> None:
        self.name = name
        self.config = dict(config)
        self.env = dict(env or {})
        self.port = _free_port()
        self._dir = tempfile.TemporaryDirectory(prefix=f"litellm-hygiene-proxy-{name}-")
        self.workdir = Path(self._dir.name)
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        """The proxy process's PID while it runs."""
        return None if self._process is None else self._process.pid

    @property
    def log_path(self) -> Path:
        return self.workdir / "proxy.log"

    def log(self) -> str:
        """What the process printed so far."""
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    def spawn(self) -> None:
        """Write the config and start the process; :meth:`wait_ready` waits for it."""
        config_path = self.workdir / "config.yaml"
        config_path.write_text(yaml.safe_dump(self.config, sort_keys=False), encoding="utf-8")
        args = [_litellm_binary(), "--config", str(config_path)]
        args += ["--host", "127.0.0.1", "--port", str(self.port)]
        with self.log_path.open("wb") as log:
            self._process = subprocess.Popen(
                args,
                cwd=self.workdir,
                env=proxy_environment() | self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: stop() reaches workers too
            )

    def wait_ready(self, timeout: float = _STARTUP_TIMEOUT) -> None:
        """Return once ``/health/liveliness`` answers 200.

        Raises:
            RuntimeError: The process exited or did not get ready in time; the message
                holds the end of its log.
        """
        process = self._process
        if process is None:
            raise RuntimeError(f"proxy {self.name} was not started")
        deadline = time.monotonic() + timeout
        while not self._live():
            if process.poll() is not None:
                self._fail(f"exited with status {process.returncode}")
            if time.monotonic() > deadline:
                self._fail(f"not ready after {timeout:.0f} s")
            time.sleep(0.2)

    def _live(self) -> bool:
        try:
            with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(
                f"{self.url}/health/liveliness", timeout=2
            ) as reply:
                return bool(reply.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def _fail(self, why: str) -> None:
        log = self.log()
        self.stop()
        raise RuntimeError(
            f"litellm proxy {self.name} on port {self.port} {why}; log {self.log_path}:\n"
            f"{log[-6000:]}"
        )

    def stop(self) -> None:
        """SIGTERM the process group by the leader's PID, wait, SIGKILL if it hangs."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        _signal_group(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            _signal_group(process.pid, signal.SIGKILL)
            process.wait()

    def close(self) -> None:
        """Stop the process and remove its work dir."""
        self.stop()
        self._dir.cleanup()


def _signal_group(pid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pid, sig)  # the group start_new_session made: pgid == leader's pid
    except ProcessLookupError:
        pass


@contextmanager
def running_proxies(servers: Sequence[ProxyServer]) -> Iterator[Sequence[ProxyServer]]:
    """Start ``servers`` together, wait for all, and stop and clean them up afterwards."""
    with ExitStack() as stack:
        for server in servers:
            stack.callback(server.close)
            server.spawn()
        for server in servers:
            server.wait_ready()
        yield servers


def standin_config(standin_url: str, **hygiene: Any) -> Json:
    """A proxy config: three model groups behind the stand-in, a fallback, hygiene.

    Groups ``claude`` (``anthropic/claude-sonnet-4-5``), ``mistral``
    (``mistral/mistral-large-latest``) and ``gpt`` (``openai/gpt-4o``); the Router falls
    back from ``claude`` to ``mistral``. ``hygiene`` becomes the ``callback_settings:
    litellm_hygiene:`` section.
    """

    def group(name: str, model: str, base_path: str) -> Json:
        params = {"model": model, "api_base": standin_url + base_path, "api_key": "sk-x"}
        return {"model_name": name, "litellm_params": params}

    return {
        "model_list": [
            group("claude", "anthropic/claude-sonnet-4-5", ""),
            group("mistral", "mistral/mistral-large-latest", "/v1"),
            group("gpt", "openai/gpt-4o", "/v1"),
        ],
        # No retries (each would take a queued reply) and no cooldown (a failed
        # deployment must stay routable for the next test): one attempt per hop.
        "router_settings": {
            "fallbacks": [{"claude": ["mistral"]}],
            "num_retries": 0,
            "disable_cooldowns": True,
        },
        "litellm_settings": {"callbacks": "litellm_hygiene.proxy_handler"},
        "callback_settings": {"litellm_hygiene": hygiene},
    }


@contextmanager
def proxy_client(server: ProxyServer) -> Iterator[openai.OpenAI]:
    """An OpenAI SDK client of ``server`` (no SDK retries: each would take a queued reply)."""
    client = openai.OpenAI(
        base_url=f"{server.url}/v1", api_key=MASTER_KEY, max_retries=0, timeout=60
    )
    try:
        yield client
    finally:
        client.close()


@dataclass(frozen=True)
class Answer:
    """A completion as a proxy client sees it."""

    headers: dict[str, str]
    sdk_message: ChatCompletionMessage

    @property
    def message(self) -> Json:
        """The message as a client stores it (``model_dump()`` keeps extra fields)."""
        return self.sdk_message.model_dump()

    def without_stamp(self) -> Json:
        """The message as a client that drops unknown fields stores it."""
        return self.sdk_message.model_dump(exclude={STAMP})


def chat(client: openai.OpenAI, model: str, messages: list[Json]) -> Answer:
    """One completion: its hygiene headers and the SDK's message."""
    raw = client.chat.completions.with_raw_response.create(
        model=model, messages=cast(Any, messages)
    )
    return Answer(hygiene_headers(raw.headers), raw.parse().choices[0].message)


def hygiene_headers(headers: Any) -> dict[str, str]:
    """The ``x-litellm-hygiene-*`` headers, names lower-cased."""
    return {k.lower(): v for k, v in headers.items() if k.lower().startswith("x-litellm-hygiene")}


def json_keys(value: Any) -> set[str]:
    """Every object key at any depth of a JSON value (to check what reached a provider)."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in json_keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in json_keys(v)}
    return set()
