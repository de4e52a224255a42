"""Mistral chat completion response bodies (``POST /v1/chat/completions``).

Shapes follow real ``mistral-large-latest`` recordings: tool-call ids are exactly 9
base62 characters and carry an ``index`` but no ``type``; ``usage`` has
``num_cached_tokens``; ``id`` is 32 hex digits. Mistral's context overflow is a 400 with
code ``3051`` that LiteLLM maps only to a plain ``BadRequestError``.
"""

from __future__ import annotations

import json
from typing import Any

from ._ids import CREATED, HEX, token
from ._reply import Json, Reply, Route

__all__ = ["completion", "overflow_error", "tool_call"]

ROUTE: Route = "chat-completions"


def tool_call(name: str, arguments: dict[str, Any], seed: str, index: int = 0) -> Json:
    """A tool call with a 9-character id."""
    return {
        "id": token(f"mistral:{seed}", 9),
        "function": {"name": name, "arguments": json.dumps(arguments)},
        "index": index,
    }


def completion(
    content: str,
    *,
    model: str,
    seed: str,
    tool_calls: list[Json] | None = None,
    prompt_tokens: int = 100,
    completion_tokens: int = 29,
) -> Reply:
    """A complete ``chat.completion``."""
    return Reply(
        route=ROUTE,
        body={
            "id": token(f"id:{seed}", 32, HEX),
            "created": CREATED,
            "model": model,
            "usage": {
                "prompt_tokens": prompt_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "completion_tokens": completion_tokens,
                "num_cached_tokens": 0,
            },
            "object": "chat.completion",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls" if tool_calls else "stop",
                    "message": {"role": "assistant", "tool_calls": tool_calls, "content": content},
                }
            ],
        },
    )


def overflow_error(prompt_tokens: int = 150004, window: int = 131072) -> Reply:
    """The 400 Mistral returns when the prompt does not fit the context window."""
    return Reply(
        route=ROUTE,
        status=400,
        body={
            "object": "error",
            "message": (
                f"Prompt contains {prompt_tokens} tokens and 0 draft tokens, too large for "
                f"model with {window} maximum context length"
            ),
            "type": "invalid_request_invalid_args",
            "param": None,
            "code": "3051",
        },
    )
