"""What each provider's API rejects, as checks on a request body LiteLLM sent.

The stand-in accepts anything; these checks say what the real API would have refused,
so a scenario can assert that the wire request hygiene produced is valid for its target
(in replay, on the body the cassette pins). Each returns a list of violations, empty
when the body is valid. The rules are the ones in ``PROVIDER_RULES.md`` (§1-§3).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Literal

__all__ = [
    "ANTHROPIC_TOOL_ID",
    "MISTRAL_TOOL_ID",
    "RESPONSE_ONLY_KEYS",
    "WireApi",
    "contains",
    "violations",
]

WireApi = Literal["anthropic", "bedrock", "gemini", "openai-chat", "mistral", "responses"]

ANTHROPIC_TOOL_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
"""Anthropic (and Bedrock's ``toolUseId``) accept only this alphabet."""
MISTRAL_TOOL_ID = re.compile(r"^[a-zA-Z0-9]{9}$")
"""Mistral rejects any tool-call id that is not exactly 9 alphanumerics."""
RESPONSE_ONLY_KEYS = frozenset(
    {"thinking_blocks", "reasoning_content", "provider_specific_fields", "litellm_hygiene"}
)
"""Keys of LiteLLM's response messages that OpenAI-family APIs reject in a request."""


def contains(body: Any, needle: str) -> bool:
    """``needle`` occurs anywhere in the serialized body (keys or values)."""
    return needle in json.dumps(body, ensure_ascii=False)


def _pairing(turns: Iterable[tuple[list[str], list[str]]]) -> Iterator[str]:
    """Every call answered right after it; no answer without a call.

    ``turns`` yields (call ids issued, result ids given) per message, in order: results
    may only close calls of the latest call turn, and the first message that neither
    issues calls nor gives results ends that turn.
    """
    open_calls: list[str] = []
    for calls, results in turns:
        for result in results:
            if result in open_calls:
                open_calls.remove(result)
            else:
                yield f"result {result!r} answers no open call"
        if results and not calls:
            continue
        yield from (f"call {c!r} has no result" for c in open_calls)
        open_calls = list(calls)
    yield from (f"call {c!r} has no result" for c in open_calls)


def _chat(body: Any, id_rule: re.Pattern[str] | None) -> Iterator[str]:
    turns: list[tuple[list[str], list[str]]] = []
    for i, msg in enumerate(body.get("messages", [])):
        bad = RESPONSE_ONLY_KEYS & set(msg)
        if bad:
            yield f"messages[{i}] carries response-only keys {sorted(bad)}"
        calls = [c.get("id", "") for c in msg.get("tool_calls") or []]
        for call_id in calls:
            if id_rule is not None and not id_rule.match(call_id):
                yield f"messages[{i}] tool call id {call_id!r} is rejected"
        results = [msg.get("tool_call_id", "")] if msg.get("role") == "tool" else []
        turns.append((calls, results))
    yield from _pairing(turns)


def _mistral_order(body: Any) -> Iterator[str]:
    """Mistral's turn order (PROVIDER_RULES.md §7), checked message by message."""
    messages = body.get("messages", [])
    previous: str | None = None
    for i, msg in enumerate(messages):
        role = msg.get("role")
        if role == "system" and previous not in (None, "system"):
            yield f"messages[{i}]: Unexpected role 'system' after role '{previous}'"
        if role == "user" and previous == "tool":
            yield f"messages[{i}]: Unexpected role 'user' after role 'tool'"
        if role == "assistant" and previous in (None, "system"):
            yield f"messages[{i}]: the first turn is the assistant's"
        previous = role
    last = messages[-1] if messages else {}
    if last.get("role") == "assistant" and last.get("prefix") is not True:
        yield "Expected last role User or Tool (or Assistant with prefix True) but got assistant"


def _blocks(msg: Any) -> list[Any]:
    content = msg.get("content")
    return content if isinstance(content, list) else []


def _anthropic(body: Any) -> Iterator[str]:
    turns: list[tuple[list[str], list[str]]] = []
    for i, msg in enumerate(body.get("messages", [])):
        calls = [b["id"] for b in _blocks(msg) if b.get("type") == "tool_use"]
        for call_id in calls:
            if not ANTHROPIC_TOOL_ID.match(call_id):
                yield f"messages[{i}] tool_use id {call_id!r} is rejected"
        results = [b["tool_use_id"] for b in _blocks(msg) if b.get("type") == "tool_result"]
        turns.append((calls, results))
    yield from _pairing(turns)


def _bedrock(body: Any) -> Iterator[str]:
    turns: list[tuple[list[str], list[str]]] = []
    for i, msg in enumerate(body.get("messages", [])):
        calls = [b["toolUse"]["toolUseId"] for b in _blocks(msg) if "toolUse" in b]
        for call_id in calls:
            if not ANTHROPIC_TOOL_ID.match(call_id):
                yield f"messages[{i}] toolUseId {call_id!r} is rejected"
        results = [b["toolResult"]["toolUseId"] for b in _blocks(msg) if "toolResult" in b]
        turns.append((calls, results))
    yield from _pairing(turns)


def _names(parts: list[Any], camel: str, snake: str) -> list[str]:
    """The ``name`` of every part holding ``camel`` or ``snake`` (Google accepts both)."""
    found = (p.get(camel, p.get(snake)) for p in parts)
    return [str(entry.get("name", "")) for entry in found if isinstance(entry, dict)]


def _gemini(body: Any) -> Iterator[str]:
    """Gemini pairs by name and order: each model turn's calls, answered next turn.

    Google's JSON accepts both spellings of a field; LiteLLM sends ``function_call`` and
    ``function_response``, Google's own SDKs ``functionCall`` and ``functionResponse``.
    """
    turns: list[tuple[list[str], list[str]]] = []
    for content in body.get("contents", []):
        parts = content.get("parts", [])
        calls = _names(parts, "functionCall", "function_call")
        results = _names(parts, "functionResponse", "function_response")
        turns.append((calls, results))
    yield from _pairing(turns)


def _responses(body: Any) -> Iterator[str]:
    turns: list[tuple[list[str], list[str]]] = []
    items = body.get("input", [])
    for i, item in enumerate(items):
        kind = item.get("type")
        if kind == "function_call":
            turns.append(([item.get("call_id", "")], []))
        elif kind == "function_call_output":
            turns.append(([], [item.get("call_id", "")]))
        else:
            turns.append(([], []))
        if kind == "reasoning":
            following = items[i + 1].get("type") if i + 1 < len(items) else None
            if following not in ("function_call", "message"):
                yield f"input[{i}] reasoning item without its following item"
    merged: list[tuple[list[str], list[str]]] = []
    for calls, results in turns:  # parallel calls are consecutive items
        if merged and calls and merged[-1][0] and not merged[-1][1]:
            merged[-1][0].extend(calls)
        else:
            merged.append((calls, results))
    yield from _pairing(merged)


_CHECKS: dict[WireApi, Callable[[Any], Iterator[str]]] = {
    "anthropic": _anthropic,
    "bedrock": _bedrock,
    "gemini": _gemini,
    "openai-chat": lambda body: _chat(body, None),
    "mistral": lambda body: itertools.chain(_chat(body, MISTRAL_TOOL_ID), _mistral_order(body)),
    "responses": _responses,
}


def violations(api: WireApi, body: Any) -> list[str]:
    """What the real ``api`` would reject in ``body``; empty when it is valid.

    Whatever the API, litellm_hygiene's stamp must never reach a provider.
    """
    found = list(_CHECKS[api](body))
    if contains(body, '"litellm_hygiene"'):
        found.append("the litellm_hygiene stamp reached the wire")
    return found
