"""OpenAI Chat Completions response bodies (``POST /v1/chat/completions``).

Shapes follow real ``gpt-4o`` recordings: ``call_`` + 24 base62 tool-call ids, a
``message`` with ``refusal`` and ``annotations``, and ``usage`` with token details.
"""

from __future__ import annotations

import json
from typing import Any

from ._ids import CREATED, token
from ._reply import Json, Reply, Route

__all__ = ["completion", "error", "tool_call"]

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
