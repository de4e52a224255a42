"""LiteLLM's ``<id>__thought__<signature>`` form of a tool-call id, stated once.

LiteLLM keeps a Gemini thought signature inside a tool call's id, after the separator,
and strips it again for every model it does not treat as Gemini. Every reader, writer,
fingerprint and trimming step that meets an id splits and joins it here.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["THOUGHT_SEPARATOR", "bare_id", "join_id", "result_fields", "split_id"]

THOUGHT_SEPARATOR: Final = "__thought__"
"""LiteLLM's separator between a Gemini tool-call id and its thought signature."""


def split_id(raw: str) -> tuple[str, str | None]:
    """Split LiteLLM's ``<id>__thought__<signature>`` into id and signature.

    An id that starts with the separator has no id before it: it is kept whole.
    """
    head, sep, tail = raw.partition(THOUGHT_SEPARATOR)
    return (head, tail) if sep and head else (raw, None)


def bare_id(raw: str) -> str:
    """``split_id(raw)[0]``: the id without its signature, the signature not copied."""
    cut = raw.find(THOUGHT_SEPARATOR)
    return raw[:cut] if cut > 0 else raw


def result_fields(raw: str) -> dict[str, Any]:
    """A tool result's id as given, as the neutral model holds it.

    ``tool_call_id`` without the signature, the signature as ``thought_signature``, and
    ``signature_in_id`` saying it travelled in the id (so it is written back there).
    """
    call_id, signature = split_id(raw)
    in_id = signature is not None
    return dict(tool_call_id=call_id, thought_signature=signature, signature_in_id=in_id)


def join_id(call_id: str, signature: str | None, in_id: bool) -> str:
    """Rebuild a wire id, re-attaching the signature where it travelled in the id."""
    if in_id and signature is not None:
        return f"{call_id}{THOUGHT_SEPARATOR}{signature}"
    return call_id
