"""Anthropic Messages API response bodies (``POST /v1/messages``).

Shapes follow real recordings: thinking blocks carry a base64 ``signature``, tool calls
are ``tool_use`` blocks with ``toolu_01`` + 22 base62 ids, ``usage`` reports the cache
fields and ``inference_geo`` (returned by current API versions), and errors come in the
``{"type": "error", "error": {...}}`` envelope.
"""

from __future__ import annotations

from typing import Any

from ._ids import b64_token, token
from ._reply import Json, Reply, Route

__all__ = ["error", "message", "text", "thinking", "tool_use", "tool_use_id"]

ROUTE: Route = "anthropic-messages"


def tool_use_id(seed: str) -> str:
    """A ``toolu_01...`` id as Anthropic mints them."""
    return "toolu_01" + token(f"toolu:{seed}", 22)


def thinking(text: str, seed: str) -> Json:
    """A thinking block with its (opaque, base64) signature."""
    return {"type": "thinking", "thinking": text, "signature": b64_token(f"sig:{seed}", 300)}


def text(value: str) -> Json:
    """A text block."""
    return {"type": "text", "text": value}


def tool_use(name: str, arguments: dict[str, Any], seed: str) -> Json:
    """A client tool call."""
    return {"type": "tool_use", "id": tool_use_id(seed), "name": name, "input": arguments}


def message(
    *content: Json,
    model: str,
    seed: str,
    stop_reason: str | None = None,
    input_tokens: int = 400,
    output_tokens: int = 150,
    cache_read: int = 0,
) -> Reply:
    """A complete ``message`` response; the stop reason follows the content by default."""
    if stop_reason is None:
        stop_reason = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
    return Reply(
        route=ROUTE,
        body={
            "model": model,
            "id": "msg_01" + token(f"msg:{seed}", 22),
            "type": "message",
            "role": "assistant",
            "content": list(content),
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {
                "input_tokens": input_tokens,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": cache_read,
                "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
                "output_tokens": output_tokens,
                "service_tier": "standard",
                "inference_geo": "not_available",
            },
        },
    )


def error(status: int, kind: str, message_text: str, seed: str) -> Reply:
    """An error response (``overloaded_error`` is 529, ``invalid_request_error`` 400)."""
    return Reply(
        route=ROUTE,
        status=status,
        body={
            "type": "error",
            "error": {"type": kind, "message": message_text},
            "request_id": "req_011C" + token(f"req:{seed}", 20),
        },
    )
