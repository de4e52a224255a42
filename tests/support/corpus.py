"""Real recorded provider traffic (``../shared/corpus``) replayed through LiteLLM's own parsing.

This is a test-support module, not a test file. It has two layers.

**Loading** (:func:`load_interactions`) reads every cassette format in the corpus into
:class:`Interaction` objects (request + response, bodies decoded):

* stock vcrpy YAML (``body: {string: ...}``), including old-style bare ``body: "..."``;
* pydantic-ai cassettes, whose custom serializer stores JSON bodies as ``parsed_body:``
  (re-serialised here with :func:`json.dumps`);
* Mirascope / llm-* cassettes with gzip-compressed ``!!binary`` bodies (un-gzipped by magic
  number, whatever the ``content-encoding`` header says); ``!!binary`` header values are decoded;
* vercel/ai raw JSON response bodies (one response-only :class:`Interaction`; its status is
  inferred from the body: ``error.code`` if present, 400 for an Anthropic ``type: error``
  envelope, else 200);
* the single ``EXCERPT_...yaml.tail.txt`` file (the verbatim tail of a cassette): its final
  ``response:`` block is parsed into one response-only :class:`Interaction`.

SSE bodies (``text/event-stream``, or a body starting with ``data:``/``event:``) keep their raw
text in :attr:`RecordedResponse.sse_text`; Gemini ``streamGenerateContent`` without
``alt=sse`` returns a JSON *array* of chunks, which is parsed into :attr:`RecordedResponse.json`
with ``stream_format == "json-array"``. The huge pr-4221 overflow cassettes (~1 MB) load in
well under a second with libyaml's ``CSafeLoader``, so nothing is special-cased for them.

**Replaying** (:func:`litellm_responses`) turns each successful (HTTP 200) chat-style response
into the ``litellm.ModelResponse`` that LiteLLM itself builds from the recorded bytes. It drives
the real ``litellm.completion(...)`` (request transformation, HTTP call, response
transformation, and for streams ``CustomStreamWrapper`` + ``litellm.stream_chunk_builder``) with
the HTTP layer replaced *in-process* by ``httpx.MockTransport`` serving the recorded bytes. Which
``client=`` object is accepted depends on the provider route in ``litellm/main.py`` 1.106.2:

* ``HTTPHandler(client=httpx.Client(transport=MockTransport(...)))`` (LiteLLM's own httpx
  wrapper) for routes going through ``base_llm_http_handler`` / LiteLLM-native handlers:
  ``anthropic``, ``gemini`` (``vertex_chat_completion``), ``bedrock`` (``bedrock/converse/...``,
  ``BedrockConverseLLM``), ``deepseek``, ``mistral``, ``xai``, ``groq``, ``together_ai``,
  ``ollama_chat`` (``api_base=http://127.0.0.1:11434``), and the Responses-API bridge
  (``openai/responses/<model>``: ``litellm.responses`` -> ``LiteLLMResponsesTransformationHandler``
  turns the Responses payload into a chat ``ModelResponse``);
* ``openai.OpenAI(api_key=..., base_url=..., http_client=httpx.Client(transport=MockTransport))``
  for routes going through ``openai_chat_completions`` (the OpenAI SDK): ``openai`` and
  ``cerebras``; Gemini's OpenAI-compatible endpoint is replayed as ``openai/<model>`` with
  ``base_url=https://generativelanguage.googleapis.com/v1beta/openai``;
* ``cohere_chat`` (v2 ``/v2/chat``) cannot take a client: ``_complete_cohere_chat`` in
  ``litellm/main.py`` does not forward ``client=``. It is served by a throw-away HTTP/1.0 server
  on an ephemeral ``127.0.0.1`` port (:func:`_loopback_server`) with ``api_base`` pointed at it.

The request LiteLLM sends is built from a minimal user message (the response parsing is what
matters); the mock checks that LiteLLM called the expected host and records the URL. Bodies are
served exactly as recorded except: gzip is already removed, and Gemini JSON-array streams are
re-framed as SSE (``data: <chunk>\\r\\n\\r\\n`` per array element) because LiteLLM always
requests ``alt=sse``. Bedrock uses fake explicit credentials (``aws_access_key_id`` etc. kwargs)
and ``AWS_EC2_METADATA_DISABLED=true`` so botocore never looks for credentials on the network.
While replaying, :func:`_no_network` makes any non-loopback socket connect / DNS lookup raise,
so a route that bypassed the mock would fail loudly instead of reaching the network.

Warnings LiteLLM emits while parsing are recorded (not raised) and attached to each
:class:`CorpusResponse` as :attr:`CorpusResponse.warnings`, so importing code that runs under
``-W error`` is not broken by LiteLLM-internal warnings and the warnings remain inspectable.

Only non-200 responses (errors, including every OpenRouter and pr-4221 interaction) are not
replayed; every 200 response in the corpus has a route. A 200 response without one would be
listed in :data:`SKIPPED_REPLAYS` (empty today) rather than silently dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gzip
import json
import os
import re
import socket
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias
from unittest import mock
from urllib.parse import unquote, urlsplit

import pytest
import yaml

if TYPE_CHECKING:
    import httpx
    from litellm.types.utils import ModelResponse, ModelResponseStream

__all__ = [
    "BLOCKED_NETWORK_ATTEMPTS",
    "CASSETTES_DIR",
    "CORPUS_DIR",
    "LITELLM_IMPORT_WARNINGS",
    "SHARED_DIR",
    "SKIPPED_REPLAYS",
    "CassetteFormat",
    "CorpusFormatError",
    "CorpusResponse",
    "Interaction",
    "RecordedRequest",
    "RecordedResponse",
    "SSEEvent",
    "all_interactions",
    "cassette_paths",
    "describe_message",
    "features_of",
    "litellm_responses",
    "load_interactions",
    "require_corpus",
]

JSON: TypeAlias = Any
"""A parsed JSON value (``dict``/``list``/``str``/``int``/``float``/``bool``/``None``)."""

SHARED_DIR: Path = (
    Path(os.environ["LITELLM_HYGIENE_SHARED"])
    if os.environ.get("LITELLM_HYGIENE_SHARED")
    else Path(__file__).resolve().parents[3] / "shared"
)
CORPUS_DIR: Path = SHARED_DIR / "corpus"
CASSETTES_DIR: Path = CORPUS_DIR / "cassettes"

CassetteFormat = Literal["vcrpy", "vcrpy-gzip", "pydantic-ai", "raw-json", "yaml-tail-excerpt"]
StreamFormat = Literal["sse", "json-array"]
Headers: TypeAlias = Mapping[str, tuple[str, ...]]

_GZIP_MAGIC = b"\x1f\x8b"


class CorpusFormatError(ValueError):
    """A corpus file is not in any format this module understands."""


def require_corpus() -> Path:
    """Return :data:`CASSETTES_DIR`, or skip the calling test when the corpus is absent."""
    if not CASSETTES_DIR.is_dir():
        pytest.skip(
            f"../shared/corpus not present: {CASSETTES_DIR} does not exist "
            "(set LITELLM_HYGIENE_SHARED to the folder holding corpus/)"
        )
    return CASSETTES_DIR


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SSEEvent:
    """One server-sent event: optional ``event:`` name and the joined ``data:`` lines."""

    event: str | None
    data: str

    def json(self) -> JSON:
        """The ``data`` payload parsed as JSON (raises ``ValueError`` if it is not JSON)."""
        return json.loads(self.data)


@dataclass(frozen=True)
class RecordedRequest:
    """The recorded HTTP request of one interaction."""

    method: str
    uri: str
    headers: Headers
    body: bytes | None
    json: JSON
    """The body parsed as JSON, or ``None`` if there is no body or it is not JSON."""

    @property
    def host(self) -> str:
        return urlsplit(self.uri).netloc

    @property
    def path(self) -> str:
        return urlsplit(self.uri).path


@dataclass(frozen=True)
class RecordedResponse:
    """The recorded HTTP response of one interaction, with its body decoded."""

    status: int
    headers: Headers
    body: bytes
    """The body bytes exactly as recorded, un-gzipped if they were gzip-compressed."""
    json: JSON
    """The body parsed as JSON (a ``list`` for Gemini JSON-array streams), else ``None``."""
    sse_text: str | None
    """The raw text of a ``text/event-stream`` body, else ``None``."""
    stream_format: StreamFormat | None

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    @property
    def content_type(self) -> str | None:
        values = self.headers.get("content-type")
        return values[0] if values else None

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def sse_events(self) -> list[SSEEvent]:
        """Parse :attr:`sse_text` into events (empty list for non-SSE bodies)."""
        return _parse_sse(self.sse_text) if self.sse_text is not None else []


@dataclass(frozen=True)
class Interaction:
    """One request/response pair of a corpus file.

    ``request`` is ``None`` for response-only files (vercel/ai raw JSON fixtures and the
    ``EXCERPT_...tail.txt`` excerpt).
    """

    cassette: str
    """Path relative to :data:`CASSETTES_DIR` (POSIX separators)."""
    index: int
    format: CassetteFormat
    request: RecordedRequest | None
    response: RecordedResponse


def cassette_paths() -> list[Path]:
    """Every corpus file (cassettes, raw JSON fixtures and the tail excerpt), sorted."""
    root = require_corpus()
    return sorted(
        p for p in root.rglob("*") if p.is_file() and p.name.endswith((".yaml", ".json", ".txt"))
    )


def _relative(path: Path) -> str:
    try:
        return path.resolve().relative_to(CASSETTES_DIR.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _as_text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def _headers(raw: object) -> dict[str, tuple[str, ...]]:
    if not isinstance(raw, Mapping):
        return {}
    out: dict[str, tuple[str, ...]] = {}
    for key, value in raw.items():
        values = value if isinstance(value, list) else [value]
        out[_as_text(key).lower()] = tuple(_as_text(v) for v in values)
    return out


def _raw_body(record: Mapping[str, object]) -> bytes | None:
    if "parsed_body" in record:
        return json.dumps(record["parsed_body"]).encode("utf-8")
    body = record.get("body")
    if isinstance(body, Mapping):
        body = body.get("string")
    if body is None:
        return None
    if isinstance(body, str):
        return body.encode("utf-8")
    if isinstance(body, bytes):
        return gzip.decompress(body) if body.startswith(_GZIP_MAGIC) else body
    raise CorpusFormatError(f"unsupported body type {type(body).__name__}")


def _try_json(body: bytes | None) -> JSON:
    if not body:
        return None
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None


def _parse_sse(text: str) -> list[SSEEvent]:
    events: list[SSEEvent] = []
    for block in re.split(r"\r?\n\r?\n", text):
        name: str | None = None
        data: list[str] = []
        for line in block.splitlines():
            if line.startswith("event:"):
                name = line[len("event:") :].strip()
            elif line.startswith("data:"):
                data.append(line[len("data:") :].removeprefix(" "))
        if name is not None or data:
            events.append(SSEEvent(event=name, data="\n".join(data)))
    return events


def _make_response(
    status: int, headers: Headers, body: bytes | None, request_uri: str | None
) -> RecordedResponse:
    payload = body or b""
    content_type = (headers.get("content-type") or ("",))[0]
    stripped = payload.lstrip()
    sse_text: str | None = None
    parsed: JSON = None
    stream_format: StreamFormat | None = None
    if "text/event-stream" in content_type or stripped.startswith((b"data:", b"event:")):
        sse_text = payload.decode("utf-8")
        stream_format = "sse"
    else:
        parsed = _try_json(payload)
        if (
            isinstance(parsed, list)
            and request_uri is not None
            and ":streamGenerateContent" in request_uri
        ):
            stream_format = "json-array"
    return RecordedResponse(
        status=status,
        headers=headers,
        body=payload,
        json=parsed,
        sse_text=sse_text,
        stream_format=stream_format,
    )


def _load_yaml(text: str) -> JSON:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text, Loader=loader)


def _cassette_format(interactions: list[Mapping[str, Any]]) -> CassetteFormat:
    if any(
        "parsed_body" in it["request"] or "parsed_body" in it["response"] for it in interactions
    ):
        return "pydantic-ai"
    for it in interactions:
        body = it["response"].get("body")
        raw = body.get("string") if isinstance(body, Mapping) else body
        if isinstance(raw, bytes) and raw.startswith(_GZIP_MAGIC):
            return "vcrpy-gzip"
    return "vcrpy"


def _load_cassette(path: Path, rel: str) -> list[Interaction]:
    data = _load_yaml(path.read_text(encoding="utf-8"))
    if not isinstance(data, Mapping) or not isinstance(data.get("interactions"), list):
        raise CorpusFormatError(f"{rel}: not a vcrpy cassette")
    raw_interactions: list[Mapping[str, Any]] = data["interactions"]
    fmt = _cassette_format(raw_interactions)
    out: list[Interaction] = []
    for index, raw in enumerate(raw_interactions):
        req, resp = raw["request"], raw["response"]
        req_body = _raw_body(req)
        request = RecordedRequest(
            method=str(req.get("method", "")),
            uri=str(req.get("uri", "")),
            headers=_headers(req.get("headers")),
            body=req_body,
            json=_try_json(req_body),
        )
        status = resp.get("status", {})
        response = _make_response(
            int(status.get("code", 0)), _headers(resp.get("headers")), _raw_body(resp), request.uri
        )
        out.append(Interaction(rel, index, fmt, request, response))
    return out


def _load_raw_json(path: Path, rel: str) -> list[Interaction]:
    body = path.read_bytes()
    parsed = json.loads(body)
    status = 200
    if isinstance(parsed, Mapping):
        error = parsed.get("error")
        if isinstance(error, Mapping) and isinstance(error.get("code"), int):
            status = int(error["code"])
        elif parsed.get("type") == "error" or error is not None:
            status = 400
    headers = {"content-type": ("application/json",)}
    return [Interaction(rel, 0, "raw-json", None, _make_response(status, headers, body, None))]


def _load_tail_excerpt(path: Path, rel: str) -> list[Interaction]:
    lines = path.read_text(encoding="utf-8").splitlines()
    starts = [i for i, line in enumerate(lines) if line == "  response:"]
    if not starts:
        raise CorpusFormatError(f"{rel}: no top-level 'response:' block in excerpt")
    block = [line[2:] for line in lines[starts[-1] :] if line.startswith("  ")]
    data = _load_yaml("\n".join(block))
    resp = data["response"]
    response = _make_response(
        int(resp["status"]["code"]), _headers(resp.get("headers")), _raw_body(resp), None
    )
    return [Interaction(rel, 0, "yaml-tail-excerpt", None, response)]


@functools.cache
def _load_cached(path: Path) -> tuple[Interaction, ...]:
    rel = _relative(path)
    if path.name.endswith(".tail.txt"):
        return tuple(_load_tail_excerpt(path, rel))
    if path.suffix == ".json":
        return tuple(_load_raw_json(path, rel))
    if path.suffix in (".yaml", ".yml"):
        return tuple(_load_cassette(path, rel))
    raise CorpusFormatError(f"{rel}: unknown corpus file type")


def load_interactions(path: str | os.PathLike[str]) -> list[Interaction]:
    """Load every interaction of one corpus file (absolute, or relative to ``CASSETTES_DIR``).

    A relative path skips the calling test when the corpus is absent (see :func:`require_corpus`).
    """
    p = Path(path)
    if not p.is_absolute():
        p = require_corpus() / p
    return list(_load_cached(p.resolve()))


def all_interactions() -> list[Interaction]:
    """Every interaction of every corpus file (skips the calling test if the corpus is absent)."""
    return [it for p in cassette_paths() for it in load_interactions(p)]


# --------------------------------------------------------------------------------------------
# Replaying through LiteLLM
# --------------------------------------------------------------------------------------------

ClientKind = Literal["httpx", "openai-sdk", "loopback-server"]


@dataclass(frozen=True)
class CorpusResponse:
    """A recorded response as parsed by LiteLLM, with where it came from."""

    cassette: str
    index: int
    provider: str
    """LiteLLM provider key the response was parsed as (``anthropic``, ``gemini``, ...)."""
    model: str
    """Model id as recorded (response's own model field when present)."""
    litellm_model: str
    """The ``model=`` string passed to ``litellm.completion``."""
    upstream: str
    """Which API produced the bytes (e.g. ``openai-responses``, ``gemini-openai-compat``)."""
    route: str
    """How LiteLLM was driven (client type and, for streams, ``stream_chunk_builder``)."""
    stream: bool
    request_url: str
    """The URL LiteLLM requested from the mock transport (or loopback server)."""
    recorded_url: str | None
    """The URL of the recorded request (``None`` for response-only fixtures)."""
    response: ModelResponse
    chunks: tuple[ModelResponseStream, ...]
    """The streamed chunks (empty for non-streaming responses)."""
    features: frozenset[str]
    warnings: tuple[str, ...] = ()
    """Warnings LiteLLM emitted while parsing (category name and message)."""

    @property
    def message(self) -> dict[str, Any]:
        """``response.choices[0].message.model_dump()``."""
        dumped: dict[str, Any] = self.response.choices[0].message.model_dump()
        return dumped

    @property
    def label(self) -> str:
        return f"{self.cassette}#{self.index}"


@dataclass(frozen=True)
class _Plan:
    provider: str
    model: str
    litellm_model: str
    upstream: str
    client: ClientKind
    expected_host: str
    body: bytes
    content_type: str
    stream: bool
    base_url: str | None = None
    kwargs: Mapping[str, object] = field(default_factory=dict)


SKIPPED_REPLAYS: dict[str, str] = {}
"""``"<cassette>#<index>" -> reason`` for each 200 response :func:`litellm_responses` skipped."""

BLOCKED_NETWORK_ATTEMPTS: list[str] = []
"""Addresses :func:`_no_network` refused during replay (LiteLLM may swallow the error)."""

LITELLM_IMPORT_WARNINGS: list[str] = []
"""Warnings recorded while :func:`litellm_responses` first imported LiteLLM (if it did)."""

_OPENAI_COMPAT_HOSTS: dict[str, tuple[str, ClientKind]] = {
    # host -> (LiteLLM provider key, client kind)
    "api.deepseek.com": ("deepseek", "httpx"),
    "api.mistral.ai": ("mistral", "httpx"),
    "api.groq.com": ("groq", "httpx"),
    "api.together.ai": ("together_ai", "httpx"),
    "api.x.ai": ("xai", "httpx"),
    "api.cerebras.ai": ("cerebras", "openai-sdk"),
    "api.openai.com": ("openai", "openai-sdk"),
}

_FAKE_AWS: Mapping[str, object] = {
    "aws_access_key_id": "AKIDCORPUSREPLAY0000",
    "aws_secret_access_key": "corpus-replay-secret-not-real",
}


def _sse_from_json_array(chunks: list[JSON]) -> bytes:
    return b"".join(b"data: " + json.dumps(c).encode("utf-8") + b"\r\n\r\n" for c in chunks)


def _first_json_event(resp: RecordedResponse) -> JSON:
    for event in resp.sse_events():
        try:
            return event.json()
        except ValueError:
            continue
    return None


def _recorded_model(it: Interaction) -> str | None:
    resp = it.response
    payload: JSON = resp.json
    if resp.stream_format == "sse":
        payload = _first_json_event(resp)
    elif resp.stream_format == "json-array" and isinstance(payload, list) and payload:
        payload = payload[0]
    if isinstance(payload, Mapping):
        if isinstance(payload.get("message"), Mapping) and "model" in payload["message"]:
            payload = payload["message"]  # Anthropic message_start
        for key in ("model", "modelVersion"):
            if isinstance(payload.get(key), str) and payload[key]:
                return str(payload[key])
    req = it.request.json if it.request is not None else None
    if isinstance(req, Mapping) and isinstance(req.get("model"), str):
        return str(req["model"])
    return None


def _served_body(resp: RecordedResponse) -> tuple[bytes, str]:
    if resp.stream_format == "json-array" and isinstance(resp.json, list):
        return _sse_from_json_array(resp.json), "text/event-stream"
    if resp.stream_format == "sse":
        return resp.body, "text/event-stream"
    return resp.body, resp.content_type or "application/json"


def _plan_raw_fixture(it: Interaction) -> _Plan | None:
    parts = it.cassette.split("/")
    vendor = parts[parts.index("packages") + 1] if "packages" in parts else ""
    model = _recorded_model(it) or "unknown"
    body, ctype = _served_body(it.response)
    if vendor == "google":
        host = "generativelanguage.googleapis.com"
        return _Plan(
            "gemini", model, f"gemini/{model}", "gemini", "httpx", host, body, ctype, False
        )
    if vendor == "mistral":
        host = "api.mistral.ai"
        return _Plan(
            "mistral", model, f"mistral/{model}", "mistral", "httpx", host, body, ctype, False
        )
    if vendor == "xai":
        return _Plan("xai", model, f"xai/{model}", "xai", "httpx", "api.x.ai", body, ctype, False)
    return None


def _plan(it: Interaction) -> _Plan | None:
    if it.request is None:
        return _plan_raw_fixture(it)
    host, path = it.request.host, it.request.path
    stream = it.response.stream_format is not None
    model = _recorded_model(it)
    body, ctype = _served_body(it.response)
    if host == "api.anthropic.com" and path.endswith("/v1/messages"):
        model = model or "claude-sonnet-4-5"
        return _Plan(
            "anthropic",
            model,
            f"anthropic/{model}",
            "anthropic",
            "httpx",
            host,
            body,
            ctype,
            stream,
        )
    if host == "generativelanguage.googleapis.com":
        m = re.fullmatch(r"/v1beta/models/([^:]+):(generateContent|streamGenerateContent)", path)
        if m:
            model = m.group(1)
            return _Plan(
                "gemini", model, f"gemini/{model}", "gemini", "httpx", host, body, ctype, stream
            )
        if path == "/v1beta/openai/chat/completions":
            model = model or "gemini-2.5-pro"
            return _Plan(
                "openai", model, f"openai/{model}", "gemini-openai-compat", "openai-sdk",
                host, body, ctype, stream, base_url=f"https://{host}/v1beta/openai",
            )  # fmt: skip
        return None
    m = re.fullmatch(r"bedrock-runtime\.([a-z0-9-]+)\.amazonaws\.com", host)
    if m and path.endswith("/converse"):
        model_id = unquote(path.removeprefix("/model/").removesuffix("/converse"))
        return _Plan(
            "bedrock", model_id, f"bedrock/converse/{model_id}", "bedrock-converse", "httpx",
            host, body, ctype, stream, kwargs={**_FAKE_AWS, "aws_region_name": m.group(1)},
        )  # fmt: skip
    if host == "api.openai.com" and path == "/v1/responses":
        model = model or "gpt-5"
        return _Plan(
            "openai", model, f"openai/responses/{model}", "openai-responses", "httpx",
            host, body, ctype, stream,
        )  # fmt: skip
    if host == "api.cohere.com" and path == "/v2/chat":
        model = model or "command-a"
        return _Plan(
            "cohere_chat", model, f"cohere_chat/{model}", "cohere-v2", "loopback-server",
            "127.0.0.1", body, ctype, stream, kwargs={"api_path": path},
        )  # fmt: skip
    if host == "127.0.0.1:11434" and path == "/api/chat":
        model = model or "llama3"
        return _Plan(
            "ollama_chat", model, f"ollama_chat/{model}", "ollama", "httpx", host, body, ctype,
            stream, kwargs={"api_base": "http://127.0.0.1:11434"},
        )  # fmt: skip
    if host in _OPENAI_COMPAT_HOSTS and path.endswith("/chat/completions"):
        provider, client = _OPENAI_COMPAT_HOSTS[host]
        model = model or "unknown"
        base_url = f"https://{host}/v1" if client == "openai-sdk" else None
        return _Plan(
            provider, model, f"{provider}/{model}", provider, client,
            host, body, ctype, stream, base_url=base_url,
        )  # fmt: skip
    return None


@contextlib.contextmanager
def _no_network() -> Iterator[None]:
    """Make every non-loopback socket connect or DNS lookup raise while replaying.

    Also disables botocore's EC2 instance-metadata credential probe for the duration.
    """
    loopback = {"127.0.0.1", "::1", "localhost"}
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def _check(address: object) -> None:
        host = address[0] if isinstance(address, tuple) else address
        if isinstance(host, str) and host not in loopback and not host.startswith("/"):
            BLOCKED_NETWORK_ATTEMPTS.append(repr(address))
            raise RuntimeError(f"corpus replay attempted a network connection to {address!r}")

    def connect(self: socket.socket, address: Any) -> None:
        _check(address)
        real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        _check(address)
        return real_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        _check((host,))
        return real_getaddrinfo(host, *args, **kwargs)

    # botocore must never probe the EC2 instance-metadata service for credentials. Only this
    # one variable is set and restored: LiteLLM's import writes other variables (e.g.
    # TIKTOKEN_CACHE_DIR) that must survive, so os.environ as a whole is not snapshotted.
    previous = os.environ.get("AWS_EC2_METADATA_DISABLED")
    os.environ["AWS_EC2_METADATA_DISABLED"] = "true"
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(mock.patch.object(socket.socket, "connect", connect))
            stack.enter_context(mock.patch.object(socket.socket, "connect_ex", connect_ex))
            stack.enter_context(mock.patch.object(socket, "getaddrinfo", getaddrinfo))
            yield
    finally:
        if previous is None:
            os.environ.pop("AWS_EC2_METADATA_DISABLED", None)
        else:
            os.environ["AWS_EC2_METADATA_DISABLED"] = previous


def _import_litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    return litellm


def _mock_handler(plan: _Plan, calls: list[str]) -> Callable[[httpx.Request], httpx.Response]:
    import httpx

    def handle(request: httpx.Request) -> httpx.Response:
        calls.append(str(request.url))
        if request.url.host != plan.expected_host.split(":")[0]:
            return httpx.Response(
                599, json={"error": f"corpus mock: unexpected host {request.url.host}"}
            )
        return httpx.Response(200, content=plan.body, headers={"content-type": plan.content_type})

    return handle


def _make_client(plan: _Plan, calls: list[str]) -> object:
    import httpx

    transport = httpx.MockTransport(_mock_handler(plan, calls))
    if plan.client == "openai-sdk":
        import openai

        return openai.OpenAI(
            api_key="test",
            base_url=plan.base_url,
            max_retries=0,
            http_client=httpx.Client(transport=transport),
        )
    from litellm.llms.custom_httpx.http_handler import HTTPHandler

    return HTTPHandler(client=httpx.Client(transport=transport))


@contextlib.contextmanager
def _loopback_server(plan: _Plan, calls: list[str]) -> Iterator[str]:
    """Serve ``plan.body`` to any POST on an ephemeral 127.0.0.1 port (HTTP/1.0, no keep-alive)."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            calls.append(f"http://{self.headers.get('host')}{self.path}")
            self.send_response(200)
            self.send_header("content-type", plan.content_type)
            self.send_header("content-length", str(len(plan.body)))
            self.end_headers()
            self.wfile.write(plan.body)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


_REPLAY_MESSAGES: list[dict[str, str]] = [{"role": "user", "content": "Replay of a recording."}]


def _call_litellm(
    litellm: Any, plan: _Plan, kwargs: dict[str, object]
) -> tuple[ModelResponse, tuple[ModelResponseStream, ...]]:
    # LiteLLM's sync path calls asyncio.get_event_loop(), which creates and installs a
    # loop when none is set; the replays run at collection time, outside any test's
    # loop. Own that loop and close it, or a later async test drops it unclosed.
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        return _call_litellm_in_loop(litellm, plan, kwargs)
    finally:
        asyncio.set_event_loop(None)
        loop.close()


def _call_litellm_in_loop(
    litellm: Any, plan: _Plan, kwargs: dict[str, object]
) -> tuple[ModelResponse, tuple[ModelResponseStream, ...]]:
    if not plan.stream:
        return litellm.completion(**kwargs), ()
    chunks = tuple(litellm.completion(stream=True, **kwargs))
    built = litellm.stream_chunk_builder(list(chunks), messages=kwargs["messages"])
    if built is None:
        raise RuntimeError("stream_chunk_builder returned None")
    return built, chunks


def _replay(plan: _Plan) -> tuple[ModelResponse, tuple[ModelResponseStream, ...], str, str]:
    litellm = _import_litellm()
    calls: list[str] = []
    kwargs: dict[str, object] = {
        "model": plan.litellm_model,
        "messages": [dict(m) for m in _REPLAY_MESSAGES],
        "api_key": "test",
        "num_retries": 0,
        **plan.kwargs,
    }
    route = f"litellm.completion client={plan.client}"
    if plan.stream:
        route += " stream=True + stream_chunk_builder"
    suppress = litellm.suppress_debug_info
    litellm.suppress_debug_info = True  # silence the "Provider List" banner on internal lookups
    try:
        if plan.client == "loopback-server":
            api_path = str(kwargs.pop("api_path", ""))
            with _loopback_server(plan, calls) as base:
                kwargs["api_base"] = base + api_path
                response, chunks = _call_litellm(litellm, plan, kwargs)
        else:
            kwargs["client"] = _make_client(plan, calls)
            response, chunks = _call_litellm(litellm, plan, kwargs)
    finally:
        litellm.suppress_debug_info = suppress
    if len(calls) != 1:
        raise RuntimeError(f"expected exactly one mocked HTTP call, got {len(calls)}: {calls}")
    return response, chunks, route, calls[0]


def _dig(obj: object, *keys: str) -> object:
    for key in keys:
        if isinstance(obj, Mapping):
            obj = obj.get(key)
        else:
            obj = getattr(obj, key, None)
    return obj


def features_of(message: Mapping[str, Any], response: object = None) -> frozenset[str]:
    """Feature tags computed from a dumped assistant message (and optionally its response).

    * ``content``: non-blank string content.
    * ``reasoning_content``: non-empty ``reasoning_content``; ``reasoning``: a top-level
      ``reasoning`` string (Groq) instead.
    * ``thinking`` / ``redacted_thinking``: a ``thinking_blocks`` entry of that type;
      ``signature``: a thinking block with a non-empty ``signature``.
    * ``reasoning_items``: Responses-API reasoning items (bridge); ``encrypted_reasoning``: one of
      them carries ``encrypted_content``.
    * ``tool_calls``; ``parallel_tool_calls`` (two or more); ``server_tool_calls`` (Anthropic
      ``srvtoolu_`` ids surfaced as ordinary tool calls); ``empty_tool_call_id``.
    * ``thought_signature``: a Gemini thought signature surfaced anywhere (tool call
      ``provider_specific_fields.thought_signature``, ``__thought__`` in a tool call id, message
      ``provider_specific_fields.thought_signatures`` / ``thought_signature``);
      ``tool_call_id_thought_suffix``: the ``__thought__`` id suffix specifically.
    * ``tool_call_provider_specific_fields`` / ``message_provider_specific_fields``: non-empty.
    * ``reasoning_tokens``: usage reports ``completion_tokens_details.reasoning_tokens > 0``.
    """
    out: set[str] = set()
    content = message.get("content")
    if isinstance(content, str) and content.strip():
        out.add("content")
    if isinstance(message.get("reasoning_content"), str) and message["reasoning_content"]:
        out.add("reasoning_content")
    if isinstance(message.get("reasoning"), str) and message["reasoning"]:
        out.add("reasoning")
    for block in message.get("thinking_blocks") or []:
        if block.get("type") in ("thinking", "redacted_thinking"):
            out.add(str(block["type"]))
        if block.get("signature"):
            out.add("signature")
    items = message.get("reasoning_items") or []
    if items:
        out.add("reasoning_items")
    if any(item.get("encrypted_content") for item in items):
        out.add("encrypted_reasoning")
    out.update(_tool_call_features(message.get("tool_calls") or []))
    psf = message.get("provider_specific_fields") or {}
    if any(v not in (None, [], {}, "") for v in psf.values()):
        out.add("message_provider_specific_fields")
    if psf.get("thought_signatures") or psf.get("thought_signature"):
        out.add("thought_signature")
    reasoning_tokens = _dig(response, "usage", "completion_tokens_details", "reasoning_tokens")
    if isinstance(reasoning_tokens, int) and reasoning_tokens > 0:
        out.add("reasoning_tokens")
    return frozenset(out)


def _tool_call_features(tool_calls: list[Mapping[str, Any]]) -> set[str]:
    out: set[str] = set()
    if tool_calls:
        out.add("tool_calls")
    if len(tool_calls) >= 2:
        out.add("parallel_tool_calls")
    for call in tool_calls:
        call_id = call.get("id")
        psf = call.get("provider_specific_fields") or {}
        if psf:
            out.add("tool_call_provider_specific_fields")
        if psf.get("thought_signature"):
            out.add("thought_signature")
        if call_id == "":
            out.add("empty_tool_call_id")
        if isinstance(call_id, str) and "__thought__" in call_id:
            out.update(("thought_signature", "tool_call_id_thought_suffix"))
        if isinstance(call_id, str) and call_id.startswith("srvtoolu_"):
            out.add("server_tool_calls")
    return out


@functools.lru_cache(maxsize=1)
def _litellm_responses_cached() -> tuple[CorpusResponse, ...]:
    out: list[CorpusResponse] = []
    SKIPPED_REPLAYS.clear()
    BLOCKED_NETWORK_ATTEMPTS.clear()
    with _no_network():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _import_litellm()
        LITELLM_IMPORT_WARNINGS[:] = [f"{w.category.__name__}: {w.message}" for w in caught]
        for it in all_interactions():
            if it.response.status != 200:
                continue
            label = f"{it.cassette}#{it.index}"
            plan = _plan(it)
            if plan is None:
                SKIPPED_REPLAYS[label] = "no LiteLLM route for this endpoint"
                continue
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                response, chunks, route, url = _replay(plan)
                message = response.choices[0].message.model_dump()
            out.append(
                CorpusResponse(
                    cassette=it.cassette,
                    index=it.index,
                    provider=plan.provider,
                    model=plan.model,
                    litellm_model=plan.litellm_model,
                    upstream=plan.upstream,
                    route=route,
                    stream=plan.stream,
                    request_url=url,
                    recorded_url=it.request.uri if it.request is not None else None,
                    response=response,
                    chunks=chunks,
                    features=features_of(message, response),
                    warnings=tuple(f"{w.category.__name__}: {w.message}" for w in caught),
                )
            )
    return tuple(out)


def litellm_responses() -> list[CorpusResponse]:
    """Every successful chat-style corpus response, parsed by LiteLLM (cached).

    Skips the calling test when the corpus is absent. Raises if LiteLLM fails to parse a
    response this module routes (so regressions are visible rather than silently dropped).
    """
    require_corpus()
    return list(_litellm_responses_cached())


# --------------------------------------------------------------------------------------------
# Describing LiteLLM's output
# --------------------------------------------------------------------------------------------


def _id_shape(value: str) -> str:
    if "__thought__" in value:
        head, _, sig = value.partition("__thought__")
        return f"{_id_shape(head)}__thought__<{len(sig)} chars>"
    m = re.fullmatch(r"([A-Za-z]{2,12}[_-])(.*)", value)
    if m:
        return f"{m.group(1)}<{len(m.group(2))}>"
    return f"<{len(value)}>"


def _shape(value: object, key: str = "") -> object:
    if isinstance(value, Mapping):
        return {str(k): _shape(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        if len(value) > 3:
            return [_shape(v, key) for v in value[:2]] + [f"...(+{len(value) - 2} more)"]
        return [_shape(v, key) for v in value]
    if isinstance(value, str):
        if key in ("id", "tool_call_id", "tool_use_id", "toolUseId"):
            return f"id:{_id_shape(value)}"
        if key in ("type", "role", "name", "finish_reason"):
            return value
        return f"str[{len(value)}]"
    if value is None or isinstance(value, (bool, int)):
        return value
    return type(value).__name__


def describe_message(message: Mapping[str, Any]) -> dict[str, object]:
    """The structure of a dumped message: every key, with strings replaced by ``str[len]``,
    tool-call ids by their shape (``toolu_<24>``, ``<9>``, ``...__thought__<n chars>``), and
    ``None`` kept, so the exact key set LiteLLM produced is visible.
    """
    return {str(k): _shape(v, str(k)) for k, v in message.items()}
