"""DeepSeek chat completion response bodies (``POST /beta/chat/completions``).

Shapes follow real ``deepseek-reasoner`` recordings: the message carries
``reasoning_content`` beside ``content``; tool-call ids are ``call_<nn>_`` + 24 base62;
``usage`` reports ``prompt_cache_hit_tokens`` / ``prompt_cache_miss_tokens``.
"""

from __future__ import annotations

import json
from typing import Any

from ._ids import CREATED, HEX, token
from ._reply import Json, Reply, Route

__all__ = ["completion", "tool_call"]

ROUTE: Route = "chat-completions"


def tool_call(name: str, arguments: dict[str, Any], seed: str, index: int = 0) -> Json:
    """A tool call with a ``call_00_...`` id."""
    return {
        "index": index,
        "id": f"call_{index:02d}_" + token(f"ds:{seed}", 24),
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def _uuid(seed: str) -> str:
    raw = token(f"uuid:{seed}", 32, HEX)
    return f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}"


def completion(
    content: str,
    *,
    model: str,
    seed: str,
    reasoning_content: str | None = None,
    tool_calls: list[Json] | None = None,
    prompt_tokens: int = 563,
    completion_tokens: int = 116,
    reasoning_tokens: int = 60,
) -> Reply:
    """A complete ``chat.completion``."""
    message: Json = {"role": "assistant", "content": content}
    if reasoning_content is not None:
        message["reasoning_content"] = reasoning_content
    if tool_calls:
        message["tool_calls"] = tool_calls
    return Reply(
        route=ROUTE,
        body={
            "id": _uuid(seed),
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
                "prompt_tokens_details": {"cached_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": reasoning_tokens},
                "prompt_cache_hit_tokens": 0,
                "prompt_cache_miss_tokens": prompt_tokens,
            },
            "system_fingerprint": "fp_" + token(f"fp:{seed}", 10, HEX) + "_prod0820_fp8_kvcache",
        },
    )
