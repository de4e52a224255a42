"""Anthropic Messages API response bodies (``POST /v1/messages``).

Shapes follow real recordings: thinking blocks carry a base64 ``signature``, tool calls
are ``tool_use`` blocks with ``toolu_01`` + 22 base62 ids, ``usage`` reports the cache
fields and ``inference_geo`` (returned by current API versions), and errors come in the
``{"type": "error", "error": {...}}`` envelope. A streamed message (``"stream": true``)
is the event sequence of :func:`stream_events`.
"""

from __future__ import annotations

import json
from typing import Any

from ._ids import b64_token, token
from ._reply import Json, Reply, Route, pieces

__all__ = ["error", "message", "stream_events", "text", "thinking", "tool_use", "tool_use_id"]

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


def stream_events(body: Json) -> list[Json]:
    """The Server-Sent Events Anthropic streams the ``message`` body as.

    As real streams do: ``message_start`` (the message, its content empty, no stop reason
    yet, one output token), a ``ping`` once the first block started, each block as
    ``content_block_start``/``content_block_delta``.../``content_block_stop`` (text and
    thinking in pieces, then the thinking's ``signature_delta``; a tool's input as
    ``input_json_delta`` pieces of its JSON after an empty one; any other block, such as
    ``redacted_thinking``, whole in its start), then ``message_delta`` (stop reason, final
    usage) and ``message_stop``. Joined up, the events give ``body`` back.
    """
    usage = body["usage"]
    start = {**body, "content": [], "stop_reason": None, "stop_sequence": None}
    start["usage"] = {**usage, "output_tokens": 1}
    events: list[Json] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(body["content"]):
        opened, *rest = _block_events(index, block)
        events += [opened, {"type": "ping"}] if index == 0 else [opened]
        events += rest
    final_usage = {
        key: usage[key]
        for key in (
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
            "output_tokens",
        )
    }
    stop = {"stop_reason": body["stop_reason"], "stop_sequence": body["stop_sequence"]}
    events.append({"type": "message_delta", "delta": stop, "usage": final_usage})
    events.append({"type": "message_stop"})
    return events


def _block_events(index: int, block: Json) -> list[Json]:
    """One content block's start, deltas and stop."""
    kind = block["type"]
    if kind == "text":
        opened: Json = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": piece} for piece in pieces(block["text"])]
    elif kind == "thinking":
        opened = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [{"type": "thinking_delta", "thinking": p} for p in pieces(block["thinking"])]
        deltas.append({"type": "signature_delta", "signature": block["signature"]})
    elif kind == "tool_use":
        opened = {**block, "input": {}}
        arguments = ["", *pieces(json.dumps(block["input"]))]
        deltas = [{"type": "input_json_delta", "partial_json": piece} for piece in arguments]
    else:  # no delta form (redacted_thinking): sent whole
        opened, deltas = block, []
    return [
        {"type": "content_block_start", "index": index, "content_block": opened},
        *({"type": "content_block_delta", "index": index, "delta": d} for d in deltas),
        {"type": "content_block_stop", "index": index},
    ]
