"""Where a chat-shaped assistant turn carries signatures, and what they say of its origin.

:func:`signature_values` is the one list of the places a turn holds a signature (the
provenance fingerprints and the signature rules read them there); :func:`evidence`
says which protocols the turn's ids, signatures and reasoning items can have come from,
for a turn no stamp or store says the origin of.
"""

from __future__ import annotations

from typing import Any, Final

from .._families import (
    CALL_ID_EVIDENCE,
    CALL_ID_SHAPES,
    REDACTED_THINKING_APIS,
    SIGNED_THINKING_APIS,
)
from .._messages import Api
from .._signatures import is_canonical_base64
from .._wire._ids import THOUGHT_SEPARATOR
from .._wire._keys import PROVIDER_FIELDS, THOUGHT_SIGNATURE, THOUGHT_SIGNATURES
from ._decode import as_message_dict

__all__ = ["evidence", "signature_values", "signatures"]

_PSF: Final = PROVIDER_FIELDS
_GEMINI: Final[frozenset[Api]] = frozenset({"gemini"})
_RESPONSES: Final[frozenset[Api]] = frozenset({"openai-responses"})
_NONE: Final[frozenset[Api]] = frozenset()
_UNKNOWN: Final[frozenset[Api]] = frozenset({"unknown"})
# ``_families``' tables as this compiled module's own ``Final`` names: a name imported
# from a module that is not compiled is looked up in the module's dict at every read.
_CALL_ID_EVIDENCE: Final = CALL_ID_EVIDENCE
_CALL_ID_SHAPES: Final = CALL_ID_SHAPES
_REDACTED: Final = REDACTED_THINKING_APIS
_SIGNED: Final = SIGNED_THINKING_APIS


_SKIP: Final = len(THOUGHT_SEPARATOR)


def _psf_signature(container: Any) -> Any:
    """The ``thought_signature`` in a call's (or its function's) provider fields."""
    psf = container.get(_PSF) if isinstance(container, dict) else None
    return psf.get(THOUGHT_SIGNATURE) if isinstance(psf, dict) else None


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


_THINKING_PARTS: Final = frozenset({"thinking", "redacted_thinking"})
_SEQUENCE: Final = (list, tuple)
"""What a list of places may be (``list | tuple`` would build a union at every call)."""
_ENTRY_KEYS: Final = ("signature", "data")
"""A thinking entry's signature; a redacted one's payload."""
_ITEM_KEYS: Final = ("encrypted_content",)


def signature_values(msg: dict[str, Any], *, in_ids: bool = True, loose: bool = True) -> list[Any]:
    """The value at every place an assistant message dict holds a signature, in order.

    The one list of those places: the signature rules (:func:`signatures`) and the
    provenance fingerprints read them here. In this order:

    - each ``thinking_blocks`` entry's ``signature`` and ``data`` (any entry: a client
      may drop its ``type``);
    - the provider fields of the message, then of each tool call and its function:
      ``thought_signature``, then each entry of the ``thought_signatures`` list;
    - the ``signature`` and ``data`` of the content's thinking parts;
    - each reasoning item's ``encrypted_content``;
    - with ``in_ids``, the signature LiteLLM keeps in a call's id, after ``__thought__``.

    A place holding ``None``, or no key, gives nothing; a value of another type is
    given as it is. ``loose``: a ``thought_signatures`` value that is not a list is
    given too, as it is (a client's malformed list).
    """
    found: list[Any] = []
    blocks = msg.get("thinking_blocks")
    if blocks is not None:
        _entries(found, blocks, _ENTRY_KEYS, None)
    _fields(found, msg.get(_PSF), loose)
    tails: list[str] | None = None
    calls = msg.get("tool_calls")
    if isinstance(calls, _SEQUENCE):
        for call in calls:
            if isinstance(call, dict):
                _fields(found, call.get(_PSF), loose)
                function = call.get("function")
                if isinstance(function, dict):
                    _fields(found, function.get(_PSF), loose)
                raw = call.get("id")
                if in_ids and isinstance(raw, str):
                    cut = raw.find(THOUGHT_SEPARATOR)
                    if cut >= 0:
                        tails = tails or []
                        tails.append(raw[cut + _SKIP :])
    content = msg.get("content")
    if isinstance(content, _SEQUENCE):
        _entries(found, content, _ENTRY_KEYS, _THINKING_PARTS)
    items = msg.get("reasoning_items")
    if items is not None:
        _entries(found, items, _ITEM_KEYS, None)
    if tails is not None:
        found += tails
    return found


def _entries(
    found: list[Any], entries: Any, keys: tuple[str, ...], kinds: frozenset[str] | None
) -> None:
    """The places in a list of entries (of one of ``kinds``, when given)."""
    if not isinstance(entries, _SEQUENCE):
        return
    for entry in entries:
        if isinstance(entry, dict) and (kinds is None or entry.get("type") in kinds):
            for key in keys:
                value = entry.get(key)
                if value is not None:
                    found.append(value)


def _fields(found: list[Any], psf: Any, loose: bool) -> None:
    """The signatures in one ``provider_specific_fields``."""
    if not isinstance(psf, dict):
        return
    single = psf.get(THOUGHT_SIGNATURE)
    if single is not None:
        found.append(single)
    listed = psf.get(THOUGHT_SIGNATURES)
    if isinstance(listed, list):
        found += listed
    elif listed is not None and loose:
        found.append(listed)


def signatures(message: Any) -> list[Any]:
    """Every value an assistant message holds where a signature travels.

    :func:`signature_values`, everywhere: of any type, as given; each entry of a
    ``thought_signatures`` list is a value given, ``None`` included.
    """
    msg = message if isinstance(message, dict) else as_message_dict(message, 0)
    return signature_values(msg)


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
        found = _CALL_ID_EVIDENCE.get(call_id[: cut + 1])
        if found is not None:
            return found
    for shape, apis in _CALL_ID_SHAPES:
        if shape.fullmatch(call_id):
            return apis
    return _NONE


def _thinking_evidence(entry: Any) -> frozenset[Api] | None:
    """Evidence of one thinking entry; ``None`` when the decoder cannot read it."""
    if not isinstance(entry, dict):
        return None
    if entry.get("type") == "redacted_thinking" and isinstance(entry.get("data"), str):
        return _REDACTED
    if entry.get("type") == "thinking" and isinstance(entry.get("thinking"), str):
        signed = isinstance(entry.get("signature"), str) and entry["signature"]
        return _SIGNED if signed else _NONE
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
    listed = psf.get(THOUGHT_SIGNATURES) if isinstance(psf, dict) else None
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
