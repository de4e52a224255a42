"""What a call left behind, reduced to the facts overflow detection reads.

Errors reach the detector as LiteLLM exceptions, provider SDK errors, JSON bodies, Python
reprs of JSON bodies wrapped in prose ("Error code: 400 - {'error': ...}"), and JSON
nested inside JSON strings (Gemini behind a proxy). Successful calls arrive as
``ModelResponse`` objects, raw provider dicts or neutral messages. This module turns the
*data* forms (strings and mappings) into one frozen :class:`Evidence` record: error texts
with whitespace and escapes normalised, structured codes, raw stop reasons, the HTTP
status and token usage. It imports nothing from LiteLLM.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Literal, TypeVar

from .._messages import StopReason
from .._wire._stops import STOP_REASONS

__all__ = [
    "Evidence",
    "WalkMode",
    "evidence_from_mapping",
    "evidence_from_text",
    "merge",
    "neutral_stop",
    "normalise",
]

_T = TypeVar("_T")

WalkMode = Literal["error", "success"]
"""``error`` reads messages and codes from a body; ``success`` reads only stop reasons
and usage, so a model's own words ("the prompt is too long") are never taken for an
error."""

_MAX_DEPTH = 8
_MAX_PARSE_CHARS = 200_000

_TEXT_KEYS = frozenset({"message", "error", "detail", "msg", "errormessage", "error_message"})
_CODE_KEYS = frozenset({"code", "type", "status", "error_code", "errorcode", "__type"})
_STATUS_KEYS = frozenset({"status_code", "statuscode", "httpstatuscode", "http_status"})
_STOP_KEYS = frozenset(
    {
        "stop_reason",
        "stopreason",
        "finish_reason",
        "finishreason",
        "native_finish_reason",
        "done_reason",
    }
)


_USAGE_KEYS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("prompt_tokens", (), "completion_tokens"),
    ("input_tokens", ("cache_read_input_tokens", "cache_creation_input_tokens"), "output_tokens"),
    ("promptTokenCount", (), "candidatesTokenCount"),
    ("inputTokens", ("cacheReadInputTokens", "cacheWriteInputTokens"), "outputTokens"),
    ("prompt_eval_count", (), "eval_count"),
)
"""(input key, cache keys added to it, output key) per usage dialect: OpenAI/LiteLLM,
Anthropic (whose input excludes cache reads and writes), Gemini, Bedrock Converse,
Ollama. The sum is the whole prompt that had to fit into the window."""

_STATUS_IN_TEXT = (
    re.compile(r"\b(?:error|status)(?:[ _]code)?\W{0,3}([1-5]\d\d)\b", re.IGNORECASE),
    re.compile(r"^\W*([45]\d\d)\b"),
    re.compile(r"<([45]\d\d)>"),
    re.compile(r"\((?:code )?([45]\d\d)\b"),
)
_PREFIX_PROVIDER = re.compile(r"(?<![.\w])([A-Za-z_]+)Exception(?: - |: )")
_PREFIX_ALIASES: Mapping[str, str] = {
    "vertexai": "vertex_ai",
    "togetherai": "together_ai",
    "fireworksai": "fireworks_ai",
    "githubcopilot": "github_copilot",
    "lmstudio": "lm_studio",
}
"""LiteLLM prefixes errors with ``<Provider>Exception - ``; these spellings differ from
its provider keys."""
_ESCAPES = (("\\n", " "), ('\\"', '"'), ("\\'", "'"), ("\\u0027", "'"), ("\u2019", "'"))
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Evidence:
    """The facts about one call that overflow detection looks at.

    Attributes:
        texts: Error texts, normalised (single spaces, JSON escapes undone).
        codes: Structured codes, error types and exception class names, lower case.
        stop_reasons: Raw provider stop/finish reasons, lower case.
        stop_reason: The neutral stop reason, when known.
        status_code: The HTTP status, when known.
        provider: The provider that answered, when known (lower case).
        input_tokens: Prompt tokens including cache reads, when reported.
        output_tokens: Generated tokens, when reported.
    """

    texts: tuple[str, ...] = ()
    codes: frozenset[str] = frozenset()
    stop_reasons: frozenset[str] = frozenset()
    stop_reason: StopReason | None = None
    status_code: int | None = None
    provider: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None


@dataclass
class _Found:
    texts: list[str] = field(default_factory=list)
    codes: set[str] = field(default_factory=set)
    stops: list[str] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)
    usage: tuple[int | None, int | None] = (None, None)

    def freeze(self) -> Evidence:
        neutral = next((STOP_REASONS[s] for s in self.stops if s in STOP_REASONS), None)
        return Evidence(
            texts=tuple(dict.fromkeys(self.texts)),
            codes=frozenset(self.codes),
            stop_reasons=frozenset(self.stops),
            stop_reason=neutral,
            status_code=self.statuses[0] if self.statuses else None,
            input_tokens=self.usage[0],
            output_tokens=self.usage[1],
        )


def normalise(text: str) -> str:
    """Undo JSON escapes and collapse whitespace, so patterns see one spelling."""
    for escaped, plain in _ESCAPES:
        text = text.replace(escaped, plain)
    return _SPACE.sub(" ", text).strip()


def neutral_stop(raw: str) -> StopReason | None:
    """The neutral stop reason for a raw finish reason, if it has one."""
    return STOP_REASONS.get(raw.lower())


def merge(first: Evidence, *others: Evidence) -> Evidence:
    """Combine evidence; for single-valued facts the first source that knows wins."""
    result = first
    for other in others:
        result = replace(
            result,
            texts=tuple(dict.fromkeys((*result.texts, *other.texts))),
            codes=result.codes | other.codes,
            stop_reasons=result.stop_reasons | other.stop_reasons,
            stop_reason=_first(result.stop_reason, other.stop_reason),
            status_code=_first(result.status_code, other.status_code),
            provider=_first(result.provider, other.provider),
            input_tokens=_first(result.input_tokens, other.input_tokens),
            output_tokens=_first(result.output_tokens, other.output_tokens),
        )
    return result


def _first(a: _T | None, b: _T | None) -> _T | None:
    return a if a is not None else b


def evidence_from_text(text: str) -> Evidence:
    """Read an error string: its prose, any JSON or repr body inside it, its status."""
    found = _Found()
    _read_text(text, found, 0)
    evidence = found.freeze()
    prefix = _PREFIX_PROVIDER.search(text)
    name = prefix.group(1).lower() if prefix else None
    provider = _PREFIX_ALIASES.get(name, name) if name else None
    return replace(evidence, provider=provider) if provider else evidence


def evidence_from_mapping(data: Mapping[str, object], mode: WalkMode) -> Evidence:
    """Read a JSON-like body: an error body in ``error`` mode, a response in ``success``."""
    found = _Found()
    _walk(data, found, mode, 0)
    return found.freeze()


def _read_text(text: str, found: _Found, depth: int) -> None:
    clean = normalise(text)
    if not clean:
        return
    found.texts.append(clean)
    for pattern in _STATUS_IN_TEXT:
        match = pattern.search(clean)
        if match:
            found.statuses.append(int(match.group(1)))
            break
    body = _parse_body(text)
    if body is not None and depth < _MAX_DEPTH:
        _walk(body, found, "error", depth + 1)


def _parse_body(text: str) -> Mapping[str, object] | None:
    """The JSON object or Python-literal dict embedded in ``text``, if any."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start or end - start > _MAX_PARSE_CHARS:
        return None
    candidate = text[start : end + 1]
    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(candidate)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, Mapping):
            return value
    return None


def _walk(data: object, found: _Found, mode: WalkMode, depth: int) -> None:
    if depth > _MAX_DEPTH:
        return
    if isinstance(data, Mapping):
        _read_usage(data, found)
        for key, value in data.items():
            _read_entry(str(key).lower(), value, found, mode, depth)
    elif isinstance(data, (list, tuple)):
        for item in data:
            _walk(item, found, mode, depth + 1)


def _read_entry(key: str, value: object, found: _Found, mode: WalkMode, depth: int) -> None:
    if key in _STOP_KEYS and isinstance(value, str):
        found.stops.append(value.lower())
    elif isinstance(value, (Mapping, list, tuple)):
        _walk(value, found, mode, depth + 1)
    elif mode == "success":
        return
    elif key in _STATUS_KEYS and _as_status(value) is not None:
        found.statuses.append(int(str(value)))
    elif key in _TEXT_KEYS and isinstance(value, str):
        _read_text(value, found, depth + 1)
    elif key in _CODE_KEYS and isinstance(value, (str, int)) and not isinstance(value, bool):
        status = _as_status(value)
        if status is not None:
            found.statuses.append(status)
        elif str(value).strip():
            found.codes.add(str(value).strip().lower().rsplit("#", 1)[-1])


def _as_status(value: object) -> int | None:
    text = str(value).strip()
    if isinstance(value, (str, int)) and text.isdigit() and len(text) == 3:
        number = int(text)
        return number if 100 <= number <= 599 else None
    return None


def _read_usage(data: Mapping[str, object], found: _Found) -> None:
    if found.usage != (None, None):
        return
    for input_key, cache_keys, output_key in _USAGE_KEYS:
        prompt = _as_int(data.get(input_key))
        if prompt is None:
            continue
        cached = sum(_as_int(data.get(key)) or 0 for key in cache_keys)
        found.usage = (prompt + cached, _as_int(data.get(output_key)))
        return


def _as_int(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value)
