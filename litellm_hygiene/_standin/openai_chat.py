"""OpenAI Chat Completions response bodies (``POST /v1/chat/completions``).

Shapes follow real ``gpt-4o`` recordings: ``call_`` + 24 base62 tool-call ids, a
``message`` with ``refusal`` and ``annotations``, and ``usage`` with token details.
"""

from __future__ import annotations

import json
from typing import Any

from ._ids import CREATED, token
from ._reply import Json, Reply, Route, pieces

__all__ = ["completion", "error", "stream_events", "tool_call"]

ROUTE: Route = "chat-completions"


def tool_call(name: str, arguments: dict[str, Any], seed: str) -> Json:
    """A function tool call with a ``call_...`` id."""
    return {
        "id": "call_" + token(f"call:{seed}", 24),
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def completion(
    content: str | None,
    *,
    model: str,
    seed: str,
    tool_calls: list[Json] | None = None,
    prompt_tokens: int = 90,
    completion_tokens: int = 20,
) -> Reply:
    """A complete ``chat.completion`` with one choice."""
    message: Json = {"role": "assistant", "content": content, "refusal": None, "annotations": []}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return Reply(
        route=ROUTE,
        body={
            "id": "chatcmpl-" + token(f"chatcmpl:{seed}", 29),
            "object": "chat.completion",
            "created": CREATED,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": "tool_calls" if tool_calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
                "completion_tokens_details": {
                    "reasoning_tokens": 0,
                    "audio_tokens": 0,
                    "accepted_prediction_tokens": 0,
                    "rejected_prediction_tokens": 0,
                },
            },
            "service_tier": "default",
            "system_fingerprint": "fp_" + token(f"fp:{seed}", 10, "0123456789abcdef"),
        },
    )


def error(status: int, message_text: str, kind: str, code: str | None = None) -> Reply:
    """An OpenAI error envelope (``server_error`` is a 500)."""
    return Reply(
        route=ROUTE,
        status=status,
        body={"error": {"message": message_text, "type": kind, "param": None, "code": code}},
    )


def stream_events(body: Json) -> list[Json]:
    """The ``chat.completion.chunk`` events a streamed completion sends ``body`` as.

    OpenAI and Mistral alike: a first chunk with the role, the text in pieces, each tool
    call's id and name in its first chunk and its arguments in pieces after, then a last
    chunk with the finish reason and the usage (the wire ends with ``data: [DONE]``).
    """
    choice = body["choices"][0]
    message = choice["message"]
    head: Json = {key: body[key] for key in ("id", "created", "model") if key in body}
    head["object"] = "chat.completion.chunk"

    def chunk(delta: Json, finish: str | None = None) -> Json:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": piece}) for piece in pieces(message.get("content") or "")]
    for index, call in enumerate(message.get("tool_calls") or []):
        opened = {**call, "function": {"name": call["function"]["name"], "arguments": ""}}
        events.append(chunk({"tool_calls": [{"index": index, **opened}]}))
        for piece in pieces(call["function"]["arguments"]):
            arguments = {"index": index, "function": {"arguments": piece}}
            events.append(chunk({"tool_calls": [arguments]}))
    last = chunk({}, choice["finish_reason"])
    last["usage"] = body.get("usage")
    return [*events, last]
