"""What each provider's API rejects, as checks on a request body LiteLLM sent.

The stand-in accepts anything; these checks say what the real API would have refused,
so a scenario can assert that the wire request hygiene produced is valid for its target
(in replay, on the body the cassette pins). Each check yields a :class:`WireProblem`:
what kind of rule is broken, where, about which id or key, and a sentence in the
checks' own words; :func:`violations` returns those sentences (empty when the body is
valid), :func:`problems` the structured records (:mod:`.strict` words them as each
provider does). The rules are the ones in ``PROVIDER_RULES.md`` (§1-§3).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "ANTHROPIC_TOOL_ID",
    "MISTRAL_TOOL_ID",
    "RESPONSE_ONLY_KEYS",
    "ProblemKind",
    "WireApi",
    "WireProblem",
    "accepts_system_messages",
    "contains",
    "problems",
    "violations",
]

WireApi = Literal[
    "anthropic-messages", "bedrock-converse", "gemini", "openai-chat", "mistral", "openai-responses"
]
"""The wire APIs the stand-in judges: values of the package's one vocabulary for a wire
protocol (``_messages.Api``, what a target's ``api`` and a turn's provenance name)."""

ANTHROPIC_TOOL_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
"""Anthropic (and Bedrock's ``toolUseId``) accept only this alphabet."""
MISTRAL_TOOL_ID = re.compile(r"^[a-zA-Z0-9]{9}$")
"""Mistral rejects any tool-call id that is not exactly 9 alphanumerics."""
RESPONSE_ONLY_KEYS = frozenset(
    {"thinking_blocks", "reasoning_content", "provider_specific_fields", "litellm_hygiene"}
)
"""Keys of LiteLLM's response messages that OpenAI-family APIs reject in a request."""


ProblemKind = Literal[
    "tool_id", "unanswered_call", "orphan_result", "response_only", "turn_order",
    "lone_reasoning", "thinking_first", "stamp", "no_body", "id_too_long", "id_prefix",
    "unknown_key", "system_role", "system_first", "system_placement",
]  # fmt: skip
"""Which rule a request breaks."""


@dataclass(frozen=True)
class WireProblem:
    """One rule a request body breaks.

    Attributes:
        kind: Which rule.
        text: The check's own sentence (what :func:`violations` returns).
        index: Position of the offending message (or item, or content) in the body.
        part: Position of the offending block inside that message, when it is one.
        subject: The id, key, item or function name concerned.
    """

    kind: ProblemKind
    text: str
    index: int | None = None
    part: int | None = None
    subject: str = ""


def contains(body: Any, needle: str) -> bool:
    """``needle`` occurs anywhere in the serialized body (keys or values)."""
    return needle in json.dumps(body, ensure_ascii=False)


def _pairing(turns: Iterable[tuple[list[str], list[str]]]) -> Iterator[WireProblem]:
    """Every call answered right after it; no answer without a call.

    ``turns`` yields (call ids issued, result ids given) per message, in order: results
    may only close calls of the latest call turn, and the first message that neither
    issues calls nor gives results ends that turn. A problem's index is the turn that
    issued the unanswered call, or the one holding the stray result (its part: the
    result's position among the turn's results).
    """
    open_calls: list[str] = []
    issued_at: int | None = None
    for index, (calls, results) in enumerate(turns):
        for part, result in enumerate(results):
            if result in open_calls:
                open_calls.remove(result)
            else:
                text = f"result {result!r} answers no open call"
                yield WireProblem("orphan_result", text, index, part, result)
        if results and not calls:
            continue
        yield from _unanswered(open_calls, issued_at)
        open_calls, issued_at = list(calls), index
    yield from _unanswered(open_calls, issued_at)


def _unanswered(calls: list[str], index: int | None) -> Iterator[WireProblem]:
    for call in calls:
        yield WireProblem("unanswered_call", f"call {call!r} has no result", index, None, call)


def _chat(body: Any, id_rule: re.Pattern[str] | None) -> Iterator[WireProblem]:
    turns: list[tuple[list[str], list[str]]] = []
    for i, msg in enumerate(body.get("messages", [])):
        bad = sorted(RESPONSE_ONLY_KEYS & set(msg))
        if bad:
            text = f"messages[{i}] carries response-only keys {bad}"
            yield WireProblem("response_only", text, i, None, bad[0])
        calls = [c.get("id", "") for c in msg.get("tool_calls") or []]
        for part, call_id in enumerate(calls):
            if id_rule is not None and not id_rule.match(call_id):
                text = f"messages[{i}] tool call id {call_id!r} is rejected"
                yield WireProblem("tool_id", text, i, part, call_id)
        results = [msg.get("tool_call_id", "")] if msg.get("role") == "tool" else []
        turns.append((calls, results))
    yield from _pairing(turns)


def _mistral_order(body: Any) -> Iterator[WireProblem]:
    """Mistral's turn order (PROVIDER_RULES.md §7), checked message by message."""
    messages = body.get("messages", [])
    previous: str | None = None
    for i, msg in enumerate(messages):
        role = msg.get("role")
        if role == "system" and previous not in (None, "system"):
            text = f"messages[{i}]: Unexpected role 'system' after role '{previous}'"
            yield WireProblem("turn_order", text, i)
        if role == "user" and previous == "tool":
            yield WireProblem(
                "turn_order", f"messages[{i}]: Unexpected role 'user' after role 'tool'", i
            )
        if role == "assistant" and previous in (None, "system"):
            yield WireProblem("turn_order", f"messages[{i}]: the first turn is the assistant's", i)
        previous = role
    last = messages[-1] if messages else {}
    if last.get("role") == "assistant" and last.get("prefix") is not True:
        text = "Expected last role User or Tool (or Assistant with prefix True) but got assistant"
        yield WireProblem("turn_order", text, len(messages) - 1)


def _blocks(msg: Any) -> list[Any]:
    content = msg.get("content")
    return content if isinstance(content, list) else []


def _asks_to_think(thinking: Any) -> bool:
    return isinstance(thinking, dict) and thinking.get("type") != "disabled"


def _thinking_first(
    messages: list[Any], result: str, thinking: tuple[str, ...]
) -> Iterator[WireProblem]:
    """Claude with thinking on: an unfinished tool loop's last turn starts with thinking.

    The loop is unfinished when the last message is the user's and holds results
    (blocks with key or type ``result``); the assistant turn before it must then start
    with a block of a ``thinking`` kind (PROVIDER_RULES.md §3, §9).
    """
    if len(messages) < 2:
        return
    last, head = messages[-1], messages[-2]
    if last.get("role") != "user" or head.get("role") != "assistant":
        return
    if not any(result in (b.get("type"), *b) for b in _blocks(last) if isinstance(b, dict)):
        return
    blocks = _blocks(head)
    first = blocks[0] if blocks and isinstance(blocks[0], dict) else {}
    found = str(first.get("type") or next(iter(first), "text"))
    if found in thinking:
        return
    index = len(messages) - 2
    text = f"messages[{index}] must start with thinking, but starts with {found!r}"
    yield WireProblem("thinking_first", text, index, 0, found)


_CLAUDE_GENERATION = re.compile(r"claude-(opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?![0-9])")
"""A current Claude model name (also inside Bedrock ids): family, major, minor; a
``-20250929`` date is not a minor version."""


def accepts_system_messages(model: str) -> bool:
    """Whether Claude ``model`` takes ``role: "system"`` entries inside ``messages``.

    Anthropic announced mid-conversation system messages with Claude Opus 4.8: Opus 4.8
    and later, and every Claude model of generation 5 or later, accept them; older
    models (and the ``claude-3-7-sonnet`` naming) know only ``user`` and ``assistant``.
    """
    found = _CLAUDE_GENERATION.search(model)
    if found is None:
        return False
    family, major, minor = found.group(1), int(found.group(2)), int(found.group(3) or 0)
    return major >= 5 or (family == "opus" and (major, minor) >= (4, 8))


def _anthropic_system(body: Any, model: str) -> Iterator[WireProblem]:
    """``role: "system"`` inside ``messages``: which models take it, and where.

    Models that accept it take it only after the first message (the initial system
    prompt is the top-level ``system`` parameter) and only right after a user message,
    so never between a ``tool_use`` and its ``tool_result``.
    """
    messages = body.get("messages", [])
    accepted = accepts_system_messages(model)
    for i, msg in enumerate(messages):
        if msg.get("role") != "system":
            continue
        if not accepted:
            text = f"messages[{i}]: {model!r} takes no system message in messages"
            yield WireProblem("system_role", text, i, None, model)
        elif i == 0:
            yield WireProblem("system_first", "messages[0] is a system message", 0)
        elif messages[i - 1].get("role") != "user":
            previous = messages[i - 1].get("role")
            text = f"messages[{i}]: a system message after role {previous!r}, not 'user'"
            yield WireProblem("system_placement", text, i, None, str(previous))


def _anthropic(body: Any, model: str | None = None) -> Iterator[WireProblem]:
    yield from _anthropic_system(body, model or str(body.get("model") or ""))
    if _asks_to_think(body.get("thinking")):
        kinds = ("thinking", "redacted_thinking")
        yield from _thinking_first(body.get("messages", []), "tool_result", kinds)
    turns: list[tuple[list[str], list[str]]] = []
    for i, msg in enumerate(body.get("messages", [])):
        blocks = _blocks(msg)
        for part, block in enumerate(blocks):
            if block.get("type") == "tool_use" and not ANTHROPIC_TOOL_ID.match(block["id"]):
                text = f"messages[{i}] tool_use id {block['id']!r} is rejected"
                yield WireProblem("tool_id", text, i, part, block["id"])
        calls = [b["id"] for b in blocks if b.get("type") == "tool_use"]
        results = [b["tool_use_id"] for b in blocks if b.get("type") == "tool_result"]
        turns.append((calls, results))
    yield from _pairing(turns)


def _bedrock(body: Any) -> Iterator[WireProblem]:
    fields = body.get("additionalModelRequestFields")
    if isinstance(fields, dict) and _asks_to_think(fields.get("thinking")):
        yield from _thinking_first(body.get("messages", []), "toolResult", ("reasoningContent",))
    turns: list[tuple[list[str], list[str]]] = []
    for i, msg in enumerate(body.get("messages", [])):
        blocks = _blocks(msg)
        for part, block in enumerate(blocks):
            call_id = block["toolUse"]["toolUseId"] if "toolUse" in block else None
            if call_id is not None and not ANTHROPIC_TOOL_ID.match(call_id):
                text = f"messages[{i}] toolUseId {call_id!r} is rejected"
                yield WireProblem("tool_id", text, i, part, call_id)
        calls = [b["toolUse"]["toolUseId"] for b in blocks if "toolUse" in b]
        results = [b["toolResult"]["toolUseId"] for b in blocks if "toolResult" in b]
        turns.append((calls, results))
    yield from _pairing(turns)


def _names(parts: list[Any], camel: str, snake: str) -> list[str]:
    """The ``name`` of every part holding ``camel`` or ``snake`` (Google accepts both)."""
    found = (p.get(camel, p.get(snake)) for p in parts)
    return [str(entry.get("name", "")) for entry in found if isinstance(entry, dict)]


def _gemini(body: Any) -> Iterator[WireProblem]:
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


_RESPONSES_ID_LIMIT = 64
"""OpenAI's longest item ``id`` and ``call_id``."""
_RESPONSES_RESPONSE_ONLY = ("provider_specific_fields",)
"""Keys LiteLLM puts on items it returns that OpenAI rejects in an input item."""


def _responses_ids(item: dict[str, Any], i: int) -> Iterator[WireProblem]:
    """An item's ids as OpenAI checks them: at most 64 characters, a call's ``fc``."""
    for key in ("id", "call_id"):
        value = item.get(key)
        if not isinstance(value, str):
            continue
        if len(value) > _RESPONSES_ID_LIMIT:
            text = f"input[{i}].{key} is {len(value)} characters long"
            yield WireProblem("id_too_long", text, i, None, f"{key}:{len(value)}")
        elif key == "id" and item.get("type") == "function_call" and not value.startswith("fc"):
            yield WireProblem("id_prefix", f"input[{i}].id {value!r} is not fc_", i, None, value)
    for key in _RESPONSES_RESPONSE_ONLY:
        if key in item:
            yield WireProblem("unknown_key", f"input[{i}].{key} is unknown", i, None, key)


def _responses(body: Any) -> Iterator[WireProblem]:
    items = body.get("input", [])
    if isinstance(items, str):
        return  # a plain prompt: one user message
    for i, item in enumerate(items):
        yield from _responses_ids(item, i)
    yield from _lone_reasoning(items)
    merged: list[tuple[list[str], list[str]]] = []
    for calls, results in _responses_turns(items):  # parallel calls are consecutive items
        if merged and calls and merged[-1][0] and not merged[-1][1]:
            merged[-1][0].extend(calls)
        else:
            merged.append((calls, results))
    if body.get("previous_response_id") or body.get("conversation"):
        # The stored response's (or conversation's) calls come first, unseen: the
        # outputs before any call here may answer them.
        while merged and not merged[0][0]:
            merged.pop(0)
    for problem in _pairing(merged):  # merged positions are not input positions
        yield WireProblem(problem.kind, problem.text, subject=problem.subject)


def _responses_turns(items: list[Any]) -> list[tuple[list[str], list[str]]]:
    """Each item's calls and outputs, as turns.

    The model's text and reasoning after its calls count in their turn: models write a
    call, then text (LiteLLM's /v1/messages adapter too), and OpenAI takes the outputs
    after both.
    """
    turns: list[tuple[list[str], list[str]]] = []
    for item in items:
        kind = item.get("type")
        model_side = kind == "reasoning" or item.get("role") == "assistant"
        if kind == "function_call":
            turns.append(([item.get("call_id", "")], []))
        elif kind == "function_call_output":
            turns.append(([], [item.get("call_id", "")]))
        elif not (model_side and turns and turns[-1][0]):
            turns.append(([], []))
    return turns


def _lone_reasoning(items: list[Any]) -> Iterator[WireProblem]:
    for i, item in enumerate(items):
        if item.get("type") != "reasoning":
            continue
        following = items[i + 1].get("type") if i + 1 < len(items) else None
        if following not in ("function_call", "message"):
            text = f"input[{i}] reasoning item without its following item"
            yield WireProblem("lone_reasoning", text, i, None, str(item.get("id", "")))


_CHECKS: dict[WireApi, Callable[[Any], Iterator[WireProblem]]] = {
    "anthropic-messages": lambda body: _anthropic(body),
    "bedrock-converse": _bedrock,
    "gemini": _gemini,
    "openai-chat": lambda body: _chat(body, None),
    "mistral": lambda body: itertools.chain(_chat(body, MISTRAL_TOOL_ID), _mistral_order(body)),
    "openai-responses": _responses,
}


def problems(api: WireApi, body: Any, model: str | None = None) -> list[WireProblem]:
    """What the real ``api`` would reject in ``body``, one record per broken rule.

    ``model`` names the model when the body does not (Claude on Bedrock's invoke route
    names it in the path); the Anthropic rules depend on it. Whatever the API,
    litellm_hygiene's stamp must never reach a provider.
    """
    check = _CHECKS[api]
    found = list(_anthropic(body, model) if api == "anthropic-messages" else check(body))
    if contains(body, '"litellm_hygiene"'):
        found.append(WireProblem("stamp", "the litellm_hygiene stamp reached the wire"))
    return found


def violations(api: WireApi, body: Any) -> list[str]:
    """What the real ``api`` would reject in ``body``, in words; empty when it is valid."""
    return [problem.text for problem in problems(api, body)]
