"""Assistant turns simple enough for a rule to rewrite without decoding them.

Most assistant turns LiteLLM returns hold readable thinking (``thinking_blocks`` or
``reasoning_content``), string content and tool calls of LiteLLM's own shape, some with
a Gemini signature, and nothing else. A rule that rewrites such a turn (another model's
thinking made text, response-only fields removed) needs only those pieces: this module
reads them, as the decoder would, and writes the turn back with only the changed keys
new, every other value the caller's own (as :meth:`OpenAIWire.with_ids` does). A turn
of any other shape is ``None`` here, and the rule decodes it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from .._messages import ContentForm
from .._view._facts import Facts
from .._view._interface import PlainTurn, ThinkingView
from .._view._plan import WirePlan
from .._wire._ids import THOUGHT_SEPARATOR, bare_id
from .._wire._keys import (
    PROVIDER_FIELDS,
    RESPONSE_FIELDS,
    STAMP_KEY,
    THOUGHT_SIGNATURE,
    THOUGHT_SIGNATURES,
)
from ._decode import as_message_dict
from ._facts import without_reasoning_facts
from ._parts import ABSENT, encode_content, read_thinking_entry

__all__ = [
    "PlainTurn",
    "plain_fields",
    "plain_turn",
    "unstamped",
    "with_ids",
    "with_keys_removed",
    "with_reasoning",
]

_PSF: Final = PROVIDER_FIELDS
_KEYS: Final = frozenset(
    {"role", "content", "tool_calls", "thinking_blocks", "reasoning_content", _PSF, STAMP_KEY}
)
"""Keys a plain turn may have: what the decoder lifts, and what passes through as it is."""
_STAMP: Final = frozenset({STAMP_KEY})
_NEW: Final = tuple.__new__
"""Builds a named tuple without its Python layer (a frame per turn otherwise)."""


def plain_turn(raw: Any) -> PlainTurn | None:
    """The pieces of a plain assistant turn; ``None`` when the turn holds more.

    Plain: no keys but the ones above; content a string, null or absent; every thinking
    entry readable; provider fields without text signatures; calls of LiteLLM's own
    shape, whose only extra is a signature (in the id, in ``provider_specific_fields``,
    or in both alike).
    """
    if type(raw) is not dict or not _KEYS.issuperset(raw):
        return None
    psf = raw.get(_PSF, ABSENT)
    if psf is not ABSENT and (type(psf) is not dict or THOUGHT_SIGNATURES in psf):
        return None
    content = raw.get("content", ABSENT)
    form: ContentForm
    if content is ABSENT or content is None:
        text, form = None, "absent" if content is ABSENT else "null"
    elif type(content) is str:
        text, form = content, "string"
    else:
        return None
    thinking = _thinking(raw)
    signed = _signed(raw.get("tool_calls", ABSENT))
    if thinking is None or signed is None:
        return None
    return _NEW(PlainTurn, (thinking, text, form, signed))


def _thinking(raw: dict[str, Any]) -> tuple[ThinkingView, ...] | None:
    blocks = raw.get("thinking_blocks", ABSENT)
    reasoning = raw.get("reasoning_content", ABSENT)
    if reasoning is not ABSENT and type(reasoning) is not str:
        return None
    if blocks is ABSENT:
        if reasoning is ABSENT:
            return ()
        return (_NEW(ThinkingView, (reasoning, None, False, "reasoning_content", None)),)
    if type(blocks) is not list or not blocks:
        return None  # the decoder keeps such a list verbatim
    read = [read_thinking_entry(entry) for entry in blocks]
    if None in read:
        return None
    return tuple(read)  # type: ignore[arg-type]


def _signed(calls: Any) -> tuple[bool, ...] | None:
    """Whether each call carries a signature; ``None`` for calls of another shape."""
    if calls is ABSENT:
        return ()
    if type(calls) is not list or not calls:
        return None
    found: list[bool] = []
    for call in calls:
        signed = _call_signed(call)
        if signed is None:
            return None
        found.append(signed)
    return tuple(found)


def _call_signed(call: Any) -> bool | None:
    if type(call) is not dict or type(call.get("type")) is not str:
        return None
    function, call_id = call.get("function"), call.get("id")
    if type(function) is not dict or len(function) != 2 or type(call_id) is not str:
        return None
    if type(function.get("name")) is not str or type(function.get("arguments")) is not str:
        return None
    cut = call_id.find(THOUGHT_SEPARATOR)
    if cut == 0:
        return None
    psf = call.get(_PSF, ABSENT)
    if psf is ABSENT:
        return cut > 0 if len(call) == 3 else None
    # The decoder lifts a signature in provider fields only when it agrees with the id's.
    if len(call) != 4 or type(psf) is not dict or len(psf) != 1 or THOUGHT_SIGNATURE not in psf:
        return None
    value = psf[THOUGHT_SIGNATURE]
    if type(value) is not str or not value:
        return None
    # value == call_id[cut + len(THOUGHT_SEPARATOR):], without copying the signature out.
    if cut > 0 and (
        len(call_id) - cut - len(THOUGHT_SEPARATOR) != len(value) or not call_id.endswith(value)
    ):
        return None
    return True


def with_reasoning(
    raw: dict[str, Any],
    facts: Facts,
    plan: WirePlan,
    text: str | None,
    form: str,
    unsign: Sequence[bool],
) -> tuple[dict[str, Any], Facts]:
    """``raw`` without its thinking, with ``text`` as its content, the marked calls unsigned.

    ``text`` is written as the string it is; ``None`` is no content, written as the
    encoder writes none in ``form`` (``null`` or ``absent``). Every other value is the
    caller's own. With its facts, worked out from ``facts`` (the turn's) and ``plan``.
    """
    out = dict(raw)
    out.pop("thinking_blocks", None)
    out.pop("reasoning_content", None)
    content = text if text is not None else encode_content((), form)
    if content is ABSENT:
        out.pop("content", None)
    else:
        out["content"] = content
    if True in unsign:
        calls = raw["tool_calls"]
        written = list(calls)
        for position, drop in enumerate(unsign):
            if drop:
                written[position] = _unsigned(calls[position])
        out["tool_calls"] = written
    return out, without_reasoning_facts(facts, out, plan, unsign)


def _unsigned(call: dict[str, Any]) -> dict[str, Any]:
    """A call of LiteLLM's shape without its signature, in the id or its provider fields."""
    return {"id": bare_id(call["id"]), "type": call["type"], "function": call["function"]}


def plain_fields(raw: Any) -> frozenset[str] | None:
    """The response-only keys of a turn where each is no more than a key to remove.

    ``None`` when the turn holds thinking, reasoning items, text signatures or call
    provider fields: what removing those means is the decoder's to say.
    """
    if type(raw) is not dict:
        return None
    calls = raw.get("tool_calls")
    if calls is not None and (type(calls) is not list or not all(map(_call_unsigned, calls))):
        return None
    found = RESPONSE_FIELDS.intersection(raw)
    if not found:
        return frozenset()
    psf = raw.get(_PSF)
    if found != {_PSF} or type(psf) is not dict or THOUGHT_SIGNATURES in psf:
        return None
    return found


def _call_unsigned(call: Any) -> bool:
    """A call with no provider fields and no signature in its id."""
    if type(call) is not dict or _PSF in call:
        return False
    function, call_id = call.get("function"), call.get("id")
    if type(function) is not dict or _PSF in function:
        return False
    return not (type(call_id) is str and THOUGHT_SEPARATOR in call_id)


def with_keys_removed(raw: Mapping[str, Any], keys: frozenset[str]) -> dict[str, Any]:
    """A shallow copy of ``raw`` without ``keys``; its values are the caller's own."""
    out = dict(raw)
    for key in keys:
        out.pop(key, None)
    return out


def unstamped(raw: Any) -> dict[str, Any]:
    """A shallow copy without the stamp key; its values are the caller's own."""
    return with_keys_removed(as_message_dict(raw, 0), _STAMP)


def with_ids(raw: Any, calls: Mapping[int, str], result: str | None) -> dict[str, Any]:
    """A shallow copy with new call ids (by position) and result id.

    Only the ids change: every other value is the caller's own, as in a message no
    rule touched.
    """
    out = dict(as_message_dict(raw, 0))
    if calls:
        entries = list(out["tool_calls"])
        for position, new_id in calls.items():
            entries[position] = {**entries[position], "id": new_id}
        out["tool_calls"] = entries
    if result is not None:
        out["tool_call_id"] = result
    return out
