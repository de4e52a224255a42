"""Fingerprints of an assistant response, the keys of the provenance store.

Clients that rebuild messages from their own schema drop litellm_hygiene's stamp, so the
integration records each response's provenance under keys that *do* survive the round
trip: the opaque tokens a provider minted for that one response (tool-call ids, thinking
signatures, Gemini thought signatures, Responses reasoning items) and, as the weakest
key, a hash of the text. A later request's unstamped assistant message is looked up by
the same keys, strongest first.

A key is ``<kind>:<first 32 hex digits of SHA-256>``: 128 bits, so distinct tokens never
collide in practice, while the key stays short enough for thousands of entries in
memory or Redis. The raw tokens never reach the store, so neither a memory dump nor a
shared Redis holds a provider's signatures or the conversation's text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any, Final

from ..._openai._evidence import signature_values
from ..._wire._ids import bare_id

__all__ = [
    "fingerprints",
    "iter_lookup_keys",
    "iter_lookup_tokens",
    "lookup_keys",
    "marked_fingerprints",
    "token_key",
    "token_mark",
]

_HEX_DIGITS: Final = 32


def _key(kind: str, value: str) -> str:
    digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{kind}:{digest[:_HEX_DIGITS]}"


def _as_dict(message: Any) -> dict[str, Any] | None:
    """The message as a dict; ``None`` when it cannot be read without raising."""
    if isinstance(message, dict):
        return message
    dump = getattr(message, "model_dump", None)
    if not callable(dump):
        return None
    try:
        # warnings=False: a loosely typed LiteLLM field must not log on every response.
        dumped = dump(warnings=False)
    except Exception:  # a foreign object's serializer: any failure means "unreadable"
        return None
    return dumped if isinstance(dumped, dict) else None


def _dicts(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, list) or isinstance(value, tuple):
        return [item for item in value if isinstance(item, dict)]
    return []


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _content_text(content: Any) -> str | None:
    """The text of ``content``, the same for a string and for a list of text parts.

    Outer whitespace is ignored because chat UIs commonly trim what they store.
    """
    if isinstance(content, str):
        text = content
    elif isinstance(content, list) or isinstance(content, tuple):
        text = "".join(
            part["text"]
            for part in _dicts(content)
            if part.get("type") == "text" and isinstance(part.get("text"), str)
        )
    else:
        return None
    return text.strip() or None


def _call_ids(calls: list[dict[str, Any]]) -> Iterator[tuple[str, str]]:
    """Each tool-call id, and for LiteLLM's Gemini ids also the id without its signature.

    A client may keep the full ``call_<hex>__thought__<sig>`` id or only the part a
    strict schema lets through; either must find the response.
    """
    for call in calls:
        raw = _text(call.get("id"))
        if raw is not None:
            yield "tc", raw
            head = bare_id(raw)  # the signature is not copied out
            if len(head) < len(raw):
                yield "tc", head


def _signatures(msg: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """Every signature the turn holds as a token, in the order of its places.

    The places are the wire layer's (``signature_values``): thinking signatures (and
    redacted data), Gemini's signatures on the message and on each tool call (or its
    function), thinking in the content's parts, reasoning items' encrypted content.
    A token is a non-empty string; a ``thought_signatures`` value counts only inside
    the list it should be. The signature in a Gemini call's id is the call id's
    (``tc``) key.
    """
    for value in signature_values(msg, in_ids=False, loose=False):
        if isinstance(value, str) and value:
            yield "sig", value


def _item_ids(msg: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """Each Responses reasoning item's id (its encrypted content is a signature)."""
    for item in _dicts(msg.get("reasoning_items")):
        item_id = _text(item.get("id"))
        if item_id is not None:
            yield "ri", item_id


def _candidates(msg: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(kind, token) pairs, strongest first (see :func:`fingerprints`)."""
    calls = _dicts(msg.get("tool_calls"))
    yield from _call_ids(calls)
    yield from _signatures(msg)
    yield from _item_ids(msg)
    text = _content_text(msg.get("content"))
    if text is not None:
        yield "tx", text


def fingerprints(message: Any) -> tuple[str, ...]:
    """Short, stable store keys for an assistant message, strongest first.

    The order is the lookup priority: tool-call ids (for LiteLLM's Gemini ids both the
    whole id and the id before ``__thought__``), every signature in the order of its
    places (thinking blocks, with the ``data`` of redacted ones; Gemini's from
    ``provider_specific_fields``; thinking parts; Responses reasoning items' encrypted
    content), the reasoning items' ids, and last a hash of the text content.
    Provider-minted tokens come first because they are unique to one response; the
    text hash is the fallback for plain answers and may be shared by two models that
    happened to answer alike ("OK.").

    The keys depend only on values, never on how the message is held: LiteLLM's
    ``Message``, its ``model_dump()``, and the dict the OpenAI SDK rebuilds (with
    ``refusal``, ``annotations`` and ``None`` fields added) give the same keys, and a
    string content equals the same text as a list of text parts. A client that drops
    some fields yields a subset, which still finds the response.

    Args:
        message: An OpenAI-shaped message: a dict or a pydantic object such as
            LiteLLM's ``Message``. Anything else is accepted and yields ``()``.

    Returns:
        The keys without duplicates; ``()`` for a non-assistant or unreadable message,
        or one with nothing to fingerprint. Never raises; linear in the message size.
    """
    return tuple(marked_fingerprints(message))


def marked_fingerprints(message: Any) -> dict[str, int]:
    """:func:`fingerprints`, in order, each with its mark: the ``hash()`` of its token.

    A mark is Python's own hash of the ``(kind, token)`` pair, keyed per process: an
    in-process store keeps it to pass over, unhashed, a token no entry was made from
    (see ``MemoryStore.get_many_tokens``). Marks mean nothing in another process.
    """
    msg = _as_dict(message)
    if msg is None or msg.get("role") != "assistant":
        return {}
    return {_key(kind, value): token_mark((kind, value)) for kind, value in _candidates(msg)}


def token_key(token: tuple[str, str]) -> str:
    """The store key of a ``(kind, token)`` pair (see :func:`iter_lookup_tokens`)."""
    return _key(token[0], token[1])


def token_mark(token: tuple[str, str]) -> int:
    """The mark of a ``(kind, token)`` pair: ``hash()`` of it, as a plain ``str``.

    A ``str`` subclass in a caller's message may hash its own way; its value, as the
    key hashes it, is what must match.
    """
    value = token[1]
    return hash(token if type(value) is str else (token[0], str.__str__(value)))


def lookup_keys(message: Any) -> tuple[str, ...]:
    """The keys an unstamped turn of a request is looked up by: some of its fingerprints.

    A response is recorded under all of :func:`fingerprints`; a request's turn is
    looked up by the first token of each kind, strongest first, and its text. Tokens of
    one kind share their fate: a client keeps a turn's call ids (or its signatures)
    together, or rewrites or drops them together, so the first finds the response
    whenever another of its kind would. Hashing is most of the cost of a lookup, and an
    agent turn holds several ids and signatures.
    """
    return tuple(iter_lookup_keys(message))


def iter_lookup_keys(message: Any) -> Iterator[str]:
    """:func:`lookup_keys` one by one, each hashed only when it is asked for.

    A store that answers in process stops at its first hit, so a turn it knows by its
    first key costs one hash, not one per kind.
    """
    for kind, value in iter_lookup_tokens(message):
        yield _key(kind, value)


def iter_lookup_tokens(message: Any) -> Iterator[tuple[str, str]]:
    """The ``(kind, token)`` pairs of :func:`iter_lookup_keys`, not yet hashed."""
    msg = _as_dict(message)
    if msg is None or msg.get("role") != "assistant":
        return
    yield from _first_of_each_kind(msg)


def _first_of_each_kind(msg: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """The first of :func:`_candidates` of each kind, in their order, as asked for.

    Read from the same places, in the same order, stopping at the first token of each
    kind instead of walking every id, signature and reasoning item of the turn (this
    runs for every unstamped assistant turn of every request, the candidates only for
    each response); a lookup that stops at its first hit reads no further.
    """
    call_id = next(_call_ids(_dicts(msg.get("tool_calls"))), None)
    if call_id is not None:
        yield call_id
    signature = next(_signatures(msg), None)
    if signature is not None:
        yield signature
    item_id = next(_item_ids(msg), None)
    if item_id is not None:
        yield item_id
    text = _content_text(msg.get("content"))
    if text is not None:
        yield "tx", text
