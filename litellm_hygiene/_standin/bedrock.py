"""Bedrock Converse response bodies (``POST /model/{modelId}/converse``).

Shapes follow real Claude-on-Bedrock recordings: ``output.message.content`` holds
``reasoningContent.reasoningText{text, signature}``, ``text`` and ``toolUse`` blocks
(``tooluse_`` + 22 base62 ids); ``usage`` has both spellings of the cache counters.
"""

from __future__ import annotations

from typing import Any

from ._ids import b64_token, token
from ._reply import Json, Reply, Route

__all__ = ["converse", "reasoning", "text", "tool_use"]

ROUTE: Route = "bedrock"


def reasoning(value: str, seed: str) -> Json:
    """A signed reasoning block."""
    return {
        "reasoningContent": {
            "reasoningText": {"text": value, "signature": b64_token(f"sig:{seed}", 140)}
        }
    }


def text(value: str) -> Json:
    """A text block."""
    return {"text": value}


def tool_use(name: str, arguments: dict[str, Any], seed: str) -> Json:
    """A tool call block."""
    tool_id = "tooluse_" + token(f"tu:{seed}", 22)
    return {"toolUse": {"toolUseId": tool_id, "name": name, "input": arguments}}


def converse(*content: Json, input_tokens: int = 400, output_tokens: int = 130) -> Reply:
    """A complete Converse response; the stop reason follows the content."""
    stop = "tool_use" if any("toolUse" in b for b in content) else "end_turn"
    return Reply(
        route=ROUTE,
        body={
            "metrics": {"latencyMs": 3896},
            "output": {"message": {"content": list(content), "role": "assistant"}},
            "stopReason": stop,
            "usage": {
                "cacheReadInputTokenCount": 0,
                "cacheReadInputTokens": 0,
                "cacheWriteInputTokenCount": 0,
                "cacheWriteInputTokens": 0,
                "inputTokens": input_tokens,
                "outputTokens": output_tokens,
                "totalTokens": input_tokens + output_tokens,
            },
        },
    )
