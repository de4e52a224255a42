"""Recorded LiteLLM traffic: the vcrpy configuration behind the scenario cassettes.

This is a test-support module, not a test file.

Every scenario test wraps its LiteLLM calls in :func:`recording`, which opens one YAML
cassette per scenario under the repository's top-level ``cassettes/`` directory. The
environment variable ``LITELLM_HYGIENE_RECORD`` picks the mode:

* unset (CI, the default): **replay**. ``record_mode="none"``; nothing is started and
  nothing reaches the network. Calls go to a fixed dummy ``api_base``
  (``http://127.0.0.1:9`` plus the real API's base path) that vcrpy intercepts; a
  request the cassette does not hold raises ``CannotOverwriteExistingCassetteException``.
* ``standin``: **re-record against the local stand-in** (:mod:`litellm_hygiene._standin`). Each
  cassette is deleted and recorded again through LiteLLM, the stand-in answering with
  the replies the test scripted.
* ``real``: **re-record against the real APIs**. No ``api_base`` override; LiteLLM reads
  the usual keys (``ANTHROPIC_API_KEY``, ``GEMINI_API_KEY``, ``OPENAI_API_KEY``,
  ``MISTRAL_API_KEY``, ``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``/``AWS_REGION_NAME``,
  ``DEEPSEEK_API_KEY``).

Requests match on method, path and the *parsed JSON* body (key order ignored), never on
scheme, host or port, so a cassette recorded against the real API replays against the
dummy base and vice versa: the dummy bases keep each real API's base path (Gemini's
``/v1beta``, DeepSeek's ``/beta``...). Since the body is matched, a cassette pins the exact
wire request LiteLLM sent after hygiene. Cassettes are recorded with the LiteLLM release
the ``dev`` extra pins; replayed on another release (CI's newest-release step), a request
must match the recorded body as that release sends it, the differences declared in
:mod:`tests.support.litellm_version`.

Cassettes keep JSON bodies parsed (``parsed_body:``) so a change to a wire request reads
as a YAML diff. Only an allowlist of headers is kept, so no key (``authorization``,
``x-api-key``, ``x-goog-api-key``, ``api-key``, AWS ``x-amz-*``) or account header is ever
written; a ``key=`` query parameter is dropped too. A stand-in recording's URI is
rewritten to the dummy base, so re-recording does not churn on the random port.

vcrpy patches httpx's own transports and, separately, ``aiohttp.ClientSession._request``.
LiteLLM 1.106 sends async calls through its ``LiteLLMAiohttpTransport`` (an
``httpx.AsyncBaseTransport`` over aiohttp, not an ``httpx.AsyncHTTPTransport``), so it is
vcrpy's aiohttp stub that records and replays them; the OpenAI SDK routes (``openai/``)
use the same transport through the SDK's httpx client.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import uuid
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast
from urllib.parse import urlsplit, urlunsplit

import litellm
import pytest
import vcr
from vcr.cassette import Cassette
from vcr.serializers import yamlserializer

from litellm_hygiene._standin import Reply, StandIn
from tests.support.litellm_callbacks import restored_callbacks
from tests.support.litellm_version import CASSETTE_RELEASE, litellm_version, recorded_as_installed

__all__ = [
    "BASE_PATHS",
    "CASSETTES",
    "FAKE_AWS",
    "MODE_ENV",
    "READONLY_WARNING",
    "REPLAY_ORIGIN",
    "Mode",
    "Provider",
    "Recording",
    "WireRequest",
    "deterministic_gemini_ids",
    "json_body_matcher",
    "offline",
    "record_mode",
    "recording",
    "registered",
    "running_standin",
    "standin_only",
    "warm_up_litellm",
]

MODE_ENV = "LITELLM_HYGIENE_RECORD"
CASSETTES = Path(__file__).resolve().parents[2] / "cassettes"
REPLAY_ORIGIN = "http://127.0.0.1:9"
"""The dummy origin of replayed calls (port 9, discard: nothing listens there)."""

Mode = Literal["replay", "standin", "real"]
Provider = Literal["anthropic", "gemini", "openai", "responses", "mistral", "bedrock", "deepseek"]

_MODES: dict[str, Mode] = {"": "replay", "standin": "standin", "real": "real"}

BASE_PATHS: dict[Provider, str] = {
    "anthropic": "",  # https://api.anthropic.com + /v1/messages
    "gemini": "/v1beta",  # https://generativelanguage.googleapis.com/v1beta/models/...
    "openai": "/v1",  # https://api.openai.com/v1/chat/completions
    "responses": "/v1",  # https://api.openai.com/v1/responses
    "mistral": "/v1",  # https://api.mistral.ai/v1/chat/completions
    "bedrock": "",  # https://bedrock-runtime.<region>.amazonaws.com/model/<id>/converse
    "deepseek": "/beta",  # https://api.deepseek.com/beta/chat/completions
}
"""The path of each real API's base URL, kept in the dummy bases so paths match."""

FAKE_AWS: dict[str, str] = {
    "aws_access_key_id": "AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "aws_region_name": "us-east-1",
}
"""AWS's documented example credentials: botocore signs with them and never looks further."""

READONLY_WARNING = r"Items? .* using the `ReadOnly` qualifier"
"""Pydantic's one-time warning about LiteLLM's ``ReadOnly`` TypedDict items."""

_KEPT_REQUEST_HEADERS = frozenset({"content-type", "anthropic-version", "anthropic-beta"})
_KEPT_RESPONSE_HEADERS = frozenset({"content-type"})
_MATCH_ON = ("method", "path", "json_body")


def record_mode() -> Mode:
    """The mode ``LITELLM_HYGIENE_RECORD`` selects (unset: replay)."""
    value = os.environ.get(MODE_ENV, "").strip().lower()
    if value not in _MODES:
        raise pytest.UsageError(f"{MODE_ENV}={value!r}: expected unset, 'standin' or 'real'")
    return _MODES[value]


def _parse(body: Any) -> Any:
    if isinstance(body, bytes | bytearray):
        body = body.decode("utf-8")
    if not body:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return body


def _first_difference(left: Any, right: Any, path: str = "$") -> str:
    """Where two parsed JSON values first differ, and how."""
    if isinstance(left, dict) and isinstance(right, dict):
        for key in sorted(set(left) | set(right)):
            if key not in left or key not in right:
                side = "recorded" if key in right else "sent"
                return f"{path}.{key}: only in the {side} body"
            if left[key] != right[key]:
                return _first_difference(left[key], right[key], f"{path}.{key}")
    if isinstance(left, list) and isinstance(right, list):
        for index, (a, b) in enumerate(zip(left, right, strict=False)):
            if a != b:
                return _first_difference(a, b, f"{path}[{index}]")
        if len(left) != len(right):
            return f"{path}: {len(left)} items sent, {len(right)} recorded"
    sent, recorded = json.dumps(left)[:300], json.dumps(right)[:300]
    return f"{path}:\n    sent:     {sent}\n    recorded: {recorded}"


def json_body_matcher(r1: Any, r2: Any) -> None:
    """vcrpy matcher: the bodies are equal as parsed JSON (key order does not matter).

    ``r1`` is the request sent, ``r2`` the recorded one. A cassette holds the body the
    release it was recorded with sent; the sent body must equal it as the installed
    release sends it (:func:`tests.support.litellm_version.recorded_as_installed`).
    """
    left = _parse(r1.body)
    right = recorded_as_installed(urlsplit(r2.uri).path, _parse(r2.body))
    if left != right:
        raise AssertionError(f"request bodies differ at {_first_difference(left, right)}")


def _keep_headers(headers: Mapping[str, Any], kept: frozenset[str]) -> dict[str, Any]:
    return {k: v for k, v in headers.items() if k.lower() in kept}


def _before_record_request(mode: Mode) -> Callable[[Any], Any]:
    def scrub(request: Any) -> Any:
        request.headers = _keep_headers(request.headers, _KEPT_REQUEST_HEADERS)
        if mode == "standin":
            parts = urlsplit(request.uri)
            origin = urlsplit(REPLAY_ORIGIN)
            request.uri = urlunsplit(parts._replace(scheme=origin.scheme, netloc=origin.netloc))
        return request

    return scrub


def _before_record_response(response: dict[str, Any]) -> dict[str, Any]:
    response["headers"] = _keep_headers(response["headers"], _KEPT_RESPONSE_HEADERS)
    return response


class _ParsedBodySerializer:
    """vcrpy's YAML, with JSON bodies stored parsed (``parsed_body``) for readable diffs."""

    @staticmethod
    def _lift(part: dict[str, Any]) -> dict[str, Any]:
        body = part.get("body")
        parsed = _parse(body.get("string") if isinstance(body, dict) else body)
        if parsed is None or isinstance(parsed, str):
            return part
        return {k: v for k, v in part.items() if k != "body"} | {"parsed_body": parsed}

    @staticmethod
    def _lower(part: dict[str, Any], wrapped: bool) -> dict[str, Any]:
        """Back to vcrpy's form: a response body is ``{"string": ...}``, a request's bare."""
        if "parsed_body" not in part:
            return part
        text = json.dumps(part["parsed_body"], ensure_ascii=False)
        body: Any = {"string": text} if wrapped else text
        return {k: v for k, v in part.items() if k != "parsed_body"} | {"body": body}

    def serialize(self, cassette_dict: dict[str, Any]) -> str:
        interactions = [
            {"request": self._lift(i["request"]), "response": self._lift(i["response"])}
            for i in cassette_dict["interactions"]
        ]
        return cast(str, yamlserializer.serialize(cassette_dict | {"interactions": interactions}))

    def deserialize(self, cassette_string: str) -> dict[str, Any]:
        data = cast(dict[str, Any], yamlserializer.deserialize(cassette_string))
        for interaction in data["interactions"]:
            interaction["request"] = self._lower(interaction["request"], False)
            interaction["response"] = self._lower(interaction["response"], True)
        return data


def _vcr(mode: Mode) -> vcr.VCR:
    config = vcr.VCR(
        serializer="parsed_yaml",
        record_mode="none" if mode == "replay" else "all",
        match_on=_MATCH_ON,
        filter_query_parameters=["key"],
        before_record_request=_before_record_request(mode),
        before_record_response=_before_record_response,
        decode_compressed_response=True,
    )
    config.register_serializer("parsed_yaml", _ParsedBodySerializer())
    config.register_matcher("json_body", json_body_matcher)
    return config


@dataclass(frozen=True)
class WireRequest:
    """One request as the cassette holds it: what LiteLLM put on the wire.

    Attributes:
        path: The URL path (no scheme, host or query).
        body: The parsed JSON body.
    """

    path: str
    body: Any


@dataclass
class Recording:
    """A scenario's cassette while its calls run.

    Attributes:
        name: The cassette's name (``cassettes/<name>.yaml``).
        mode: The recording mode.
        cassette: The open vcrpy cassette.
        standin: The stand-in, when recording against it.
    """

    name: str
    mode: Mode
    cassette: Cassette
    standin: StandIn | None = None

    def script(self, *replies: Reply) -> None:
        """Queue the stand-in's next replies; ignored when replaying or recording real APIs."""
        if self.standin is not None:
            self.standin.enqueue(*replies)

    def kwargs(self, provider: Provider) -> dict[str, Any]:
        """The ``litellm.acompletion`` keyword arguments that route ``provider`` here."""
        if self.mode == "real":
            region = os.environ.get("AWS_REGION_NAME", "us-east-1")
            return {"aws_region_name": region} if provider == "bedrock" else {}
        origin = self.standin.base_url if self.standin is not None else REPLAY_ORIGIN
        out: dict[str, Any] = {"api_base": origin + BASE_PATHS[provider]}
        if provider == "bedrock":
            return out | FAKE_AWS
        return out | {"api_key": f"test-{provider}-key"}

    @property
    def requests(self) -> list[WireRequest]:
        """Every request of the cassette, in order (recorded or loaded)."""
        return [
            WireRequest(path=urlsplit(r.uri).path, body=_parse(r.body))
            for r in self.cassette.requests
        ]

    @property
    def response_bodies(self) -> list[Any]:
        """The parsed body of every response of the cassette, in order."""
        return [_parse(r["body"]["string"]) for r in self.cassette.responses]

    async def acompletion(
        self, provider: Provider, model: str, messages: list[Any], reply: Reply, **kwargs: Any
    ) -> Any:
        """One ``litellm.acompletion`` call routed here, the stand-in scripted with ``reply``.

        LiteLLM's and the OpenAI SDK's retries are off, so one call is one request.
        """
        self.script(reply)
        call = {"num_retries": 0, "max_retries": 0, **self.kwargs(provider), **kwargs}
        return await litellm.acompletion(model=model, messages=messages, **call)


def standin_only(reason: str) -> pytest.MarkDecorator:
    """Skip a scenario when re-recording against the real APIs, which cannot play it."""
    return pytest.mark.skipif(record_mode() == "real", reason=reason)


@contextmanager
def registered(callback: Any) -> Iterator[Any]:
    """``litellm.callbacks = [callback]`` for the block; every callback list restored after."""
    with restored_callbacks():
        litellm.callbacks = [callback]
        yield callback


def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """In replay, make every socket connect fail: a replay needs no server at all."""
    if record_mode() != "replay":
        return

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("replay must not open a connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@contextmanager
def running_standin() -> Iterator[StandIn | None]:
    """The stand-in when recording against it (``standin`` mode), else ``None``."""
    if record_mode() != "standin":
        yield None
        return
    with StandIn() as server:
        yield server


@contextmanager
def recording(name: str, standin: StandIn | None = None) -> Iterator[Recording]:
    """Open ``cassettes/<name>.yaml`` in the current mode for the calls in the block.

    Replay requires the cassette; recording modes delete and rewrite it, and only on
    the release cassettes are recorded with (a replay on another release expects that
    release's bodies). Against the stand-in, every scripted reply must have been used
    and every request answered.
    """
    mode = record_mode()
    path = CASSETTES / f"{name}.yaml"
    if mode == "replay" and not path.exists():
        pytest.fail(f"missing cassette {path}: record it with {MODE_ENV}=standin", pytrace=False)
    if mode != "replay" and litellm_version() != CASSETTE_RELEASE:
        pytest.fail(
            f"cassettes are recorded with LiteLLM {'.'.join(map(str, CASSETTE_RELEASE))} "
            f"(the dev extra's pin), not {'.'.join(map(str, litellm_version()))}: "
            "record in a virtualenv with .[dev]",
            pytrace=False,
        )
    if mode != "replay":
        CASSETTES.mkdir(exist_ok=True)
        path.unlink(missing_ok=True)
    server = standin if mode == "standin" else None
    if mode == "standin" and server is None:
        raise RuntimeError(f"{MODE_ENV}=standin needs the running stand-in")
    if server is not None:
        server.reset()
    with _vcr(mode).use_cassette(str(path)) as cassette:
        yield Recording(name=name, mode=mode, cassette=cassette, standin=server)
    if mode == "replay":
        unplayed = len(cassette) - cassette.play_count
        assert not unplayed, f"{unplayed} recorded request(s) of {path.name} were never sent"
    if server is not None:
        assert not server.unanswered, f"stand-in had no reply for {server.unanswered}"
        assert not server.pending(), f"scripted replies never requested: {server.pending()}"


class _CountingUuid:
    """Stands in for the ``uuid`` module LiteLLM's Gemini parser mints tool-call ids with.

    LiteLLM keeps the first 28 hex digits of ``uuid4().hex``, so the count is hashed
    into every digit rather than counted in the last ones.
    """

    def __init__(self) -> None:
        self.count = 0

    def uuid4(self) -> uuid.UUID:
        self.count += 1
        digest = hashlib.sha256(f"litellm-hygiene-{self.count}".encode()).digest()
        return uuid.UUID(bytes=digest[:16], version=4)


def warm_up_litellm() -> None:
    """Build LiteLLM's lazily made pydantic schemas now, their ReadOnly warning silenced.

    LiteLLM's logging thread imports its proxy hooks on first use, and pydantic warns
    about LiteLLM's ``ReadOnly`` TypedDicts then; under ``-W error`` that warning would
    land in whichever test happens to be running. Import them once, here.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=READONLY_WARNING, category=UserWarning)
        from litellm.litellm_core_utils import custom_logger_registry

        assert custom_logger_registry is not None
        litellm.ModelResponse(choices=[{"index": 0, "message": {"role": "assistant"}}])


def deterministic_gemini_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make LiteLLM's synthetic Gemini tool-call ids (``call_<uuid4 hex>``) repeatable.

    Gemini's ``functionCall`` carries no id, so LiteLLM invents a random one per
    response; it reaches the next request when the conversation moves to another
    provider, and a random id in a body would make every replay miss.
    """
    from litellm.llms.vertex_ai.gemini import vertex_and_google_ai_studio_gemini as gemini

    monkeypatch.setattr(gemini, "uuid", _CountingUuid())
