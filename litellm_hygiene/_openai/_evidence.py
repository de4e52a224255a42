"""Where a chat-shaped assistant turn carries signatures, and what they say of its origin.

:func:`signatures` lists every value a turn holds where a signature travels (the
provenance fingerprints and the signature rules read the same places); :func:`evidence`
says which protocols the turn's ids, signatures and reasoning items can have come from,
for a turn no stamp or store says the origin of.
"""

from __future__ import annotations

import re
from typing import Any, Final

from .._messages import Api
from .._signatures import is_canonical_base64
from .._wire._ids import THOUGHT_SEPARATOR
from .._wire._keys import PROVIDER_FIELDS
from ._decode import as_message_dict

__all__ = ["evidence", "signatures"]

_PSF: Final = PROVIDER_FIELDS
_ANTHROPIC_LIKE: Final[frozenset[Api]] = frozenset({"anthropic-messages", "bedrock-converse"})
_OPENAI_LIKE: Final[frozenset[Api]] = frozenset({"openai-chat", "openai-compatible"})
_MISTRAL_ID: Final = re.compile(r"[a-zA-Z0-9]{9}")
_GEMINI: Final[frozenset[Api]] = frozenset({"gemini"})
_RESPONSES: Final[frozenset[Api]] = frozenset({"openai-responses"})
_MISTRAL: Final[frozenset[Api]] = frozenset({"mistral"})
_NONE: Final[frozenset[Api]] = frozenset()
_UNKNOWN: Final[frozenset[Api]] = frozenset({"unknown"})
_SIGNED_THINKING: Final[frozenset[Api]] = _ANTHROPIC_LIKE | _GEMINI
_ID_EVIDENCE: Final[dict[str, frozenset[Api]]] = {
    "toolu_": frozenset({"anthropic-messages"}),
    "srvtoolu_": frozenset({"anthropic-messages"}),
    "tooluse_": frozenset({"bedrock-converse"}),
    "fc_": _RESPONSES,
    # LiteLLM gives Gemini's calls ``call_<hex>`` ids too (the first of parallel calls
    # carries the signature, the others none).
    "call_": _OPENAI_LIKE | {"openai-responses", "gemini"},
}
"""Evidence of a call id's prefix (up to and including its first ``_``)."""


_SKIP: Final = len(THOUGHT_SEPARATOR)


def _psf_signature(container: Any) -> Any:
    """The ``thought_signature`` in a call's (or its function's) provider fields."""
    psf = container.get(_PSF) if isinstance(container, dict) else None
    return psf.get("thought_signature") if isinstance(psf, dict) else None


def _call_signature(call: dict[str, Any], call_id: str, cut: int) -> str | None:
    """The thought signature the decoder lifts from a call: id, then provider fields.

    ``cut``: where ``call_id`` (its id, ``""`` when none) holds the separator, or -1.
    """
    if cut > 0:
        return call_id[cut + _SKIP :]
    for container in (call, call.get("function")):
        value = _psf_signature(container)
        if isinstance(value, str) and value:
            return value
    return None


def _entry_signature(entry: Any) -> Any:
    if not isinstance(entry, dict):
        return None
    kind = entry.get("type")
    if kind == "thinking":
        return entry.get("signature")
    return entry.get("data") if kind == "redacted_thinking" else None


def _add(found: list[Any], value: Any) -> None:
    if value is not None:
        found.append(value)


def _add_call_signatures(found: list[Any], call: dict[str, Any]) -> None:
    """The values of a call's signature places: its id's tail, its provider fields."""
    raw = call.get("id")
    if isinstance(raw, str):
        cut = raw.find(THOUGHT_SEPARATOR)
        if cut >= 0:
            found.append(raw[cut + _SKIP :])
    _add(found, _psf_signature(call))
    _add(found, _psf_signature(call.get("function")))


def signatures(message: Any) -> list[Any]:
    """Every value an assistant message holds where a signature travels.

    Thinking signatures and redacted data (in ``thinking_blocks`` and content parts),
    encrypted reasoning items, the signatures of tool calls (in the id and in provider
    fields, the call's or its function's) and of text parts. Values of any type, as
    given; a place that is empty (``None``, or no key) gives nothing, while each entry
    of a ``thought_signatures`` list is a value given, ``None`` included.
    """
    msg = message if isinstance(message, dict) else as_message_dict(message, 0)
    found: list[Any] = []
    for entries in (msg.get("thinking_blocks"), msg.get("content")):
        if isinstance(entries, list):
            for entry in entries:
                _add(found, _entry_signature(entry))
    items = msg.get("reasoning_items")
    if isinstance(items, list):
        for item in items:
            if isinstance(item, dict):
                _add(found, item.get("encrypted_content"))
    for call in msg.get("tool_calls") or ():
        if isinstance(call, dict):
            _add_call_signatures(found, call)
    psf = msg.get(_PSF)
    listed = psf.get("thought_signatures") if isinstance(psf, dict) else None
    if isinstance(listed, list):
        found += listed
    elif listed is not None:
        found.append(listed)
    return found


def _call_evidence(call: dict[str, Any]) -> frozenset[Api]:
    raw = call.get("id")
    call_id = raw if isinstance(raw, str) else ""
    cut = call_id.find(THOUGHT_SEPARATOR)
    function = call.get("function")
    if cut >= 0 or _PSF in call or (isinstance(function, dict) and _PSF in function):
        signature = _call_signature(call, call_id, cut)
        if signature is not None and is_canonical_base64(signature):
            return _GEMINI
        if cut >= 0:
            call_id = call_id[:cut]
    if "|fc_" in call_id:
        return _RESPONSES
    cut = call_id.find("_")
    if cut >= 0:
        found = _ID_EVIDENCE.get(call_id[: cut + 1])
        if found is not None:
            return found
    if len(call_id) == 9 and _MISTRAL_ID.fullmatch(call_id):
        return _MISTRAL
    return _NONE


def _thinking_evidence(entry: Any) -> frozenset[Api] | None:
    """Evidence of one thinking entry; ``None`` when the decoder cannot read it."""
    if not isinstance(entry, dict):
        return None
    if entry.get("type") == "redacted_thinking" and isinstance(entry.get("data"), str):
        return _ANTHROPIC_LIKE
    if entry.get("type") == "thinking" and isinstance(entry.get("thinking"), str):
        signed = isinstance(entry.get("signature"), str) and entry["signature"]
        return _SIGNED_THINKING if signed else _NONE
    return None


def _reasoning_item_ok(item: Any) -> bool:
    if not isinstance(item, dict) or item.get("type") != "reasoning":
        return False
    summary = item.get("summary", [])
    return isinstance(summary, list) and all(
        isinstance(s, dict) and isinstance(s.get("text"), str) for s in summary
    )


def _listed_gemini_signature(psf: Any) -> bool:
    """Whether the message's ``thought_signatures`` list holds a Gemini signature.

    Any canonical base64 entry is one, whatever else the list holds and however many
    text parts the message has: LiteLLM lists there the signature of every signed part
    of Gemini's answer (text, thought and function-call parts alike), so the count says
    nothing of where the turn came from; and the rules change both the list and the
    parts (a blank text part dropped, an entry Google cannot decode dropped). Evidence
    that read them would judge a rule's output otherwise than the turn it was made
    from, and the next run would rewrite what this one let through.
    """
    listed = psf.get("thought_signatures") if isinstance(psf, dict) else None
    if not isinstance(listed, list):
        return False
    return any(isinstance(s, str) and is_canonical_base64(s) for s in listed)


def _block_evidence(msg: dict[str, Any]) -> list[frozenset[Api]]:
    found: list[frozenset[Api]] = []
    blocks = msg.get("thinking_blocks")
    if blocks and isinstance(blocks, list):
        each = [_thinking_evidence(b) for b in blocks]
        if None not in each:
            found += [e for e in each if e]
    items = msg.get("reasoning_items")
    if items and isinstance(items, list) and all(_reasoning_item_ok(i) for i in items):
        found.append(_RESPONSES)
    content = msg.get("content")
    if type(content) is not str and isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and part.get("type") in ("thinking", "redacted_thinking"):
                apis = _thinking_evidence(part)
                if apis:
                    found.append(apis)
    if _listed_gemini_signature(msg.get(_PSF)):
        found.append(_GEMINI)
    return found


def evidence(message: Any) -> frozenset[Api]:
    """Protocols an assistant message's own content says it came from (empty: none).

    Id shapes (``toolu_``, ``tooluse_``, ``fc_``, ``call_``, 9 alphanumerics), Gemini
    signatures (canonical base64 in an id or provider fields, on calls or text parts),
    signed or redacted thinking, OpenAI Responses reasoning items. When they disagree,
    the intersection wins; if that is empty the turn mixes origins and the result is
    ``{"unknown"}``, which matches no target: its opaque data cannot be vouched for.
    """
    msg = message if isinstance(message, dict) else as_message_dict(message, 0)
    found = _block_evidence(msg)
    calls = msg.get("tool_calls")
    if calls and isinstance(calls, list):
        for call in calls:
            if isinstance(call, dict):
                apis = _call_evidence(call)
                if apis:
                    found.append(apis)
    if not found:
        return _NONE
    common = found[0]
    for apis in found:
        if apis is not common:
            common &= apis
    return common or _UNKNOWN
