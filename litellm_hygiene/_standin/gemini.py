"""Gemini ``generateContent`` response bodies (Google AI Studio, ``gemini/...``).

Shapes follow real Gemini 2.5 and 3 recordings: ``candidates[0].content.parts`` where a
``functionCall`` part (and on Gemini 3 often the last text part) carries a base64
``thoughtSignature``; thought summaries are text parts with ``thought: true``;
``usageMetadata`` counts thought tokens; ``modelVersion`` and ``responseId`` are set.
"""

from __future__ import annotations

from typing import Any

from ._ids import b64_token, token
from ._reply import Json, Reply, Route

__all__ = ["function_call", "generate_content", "signature", "text", "thought"]

ROUTE: Route = "gemini"


def signature(seed: str) -> str:
    """A thought signature as Gemini mints them (opaque base64)."""
    return b64_token(f"thought:{seed}", 180)


def function_call(name: str, arguments: dict[str, Any], seed: str | None) -> Json:
    """A ``functionCall`` part; ``seed=None`` leaves it unsigned (a later parallel call)."""
    part: Json = {"functionCall": {"name": name, "args": arguments}}
    if seed is not None:
        part["thoughtSignature"] = signature(seed)
    return part


def text(value: str, seed: str | None = None) -> Json:
    """A text part, signed when ``seed`` is given."""
    part: Json = {"text": value}
    if seed is not None:
        part["thoughtSignature"] = signature(seed)
    return part


def thought(summary: str) -> Json:
    """A thought-summary part (``includeThoughts``)."""
    return {"text": summary, "thought": True}


def generate_content(
    *parts: Json,
    model_version: str,
    seed: str,
    prompt_tokens: int = 120,
    output_tokens: int = 12,
    thoughts_tokens: int = 300,
) -> Reply:
    """A complete ``GenerateContentResponse`` with one candidate."""
    candidate: Json = {
        "content": {"parts": list(parts), "role": "model"},
        "finishReason": "STOP",
        "index": 0,
    }
    if any("functionCall" in p for p in parts):
        candidate["finishMessage"] = "Model generated function call(s)."
    return Reply(
        route=ROUTE,
        body={
            "candidates": [candidate],
            "usageMetadata": {
                "promptTokenCount": prompt_tokens,
                "candidatesTokenCount": output_tokens,
                "totalTokenCount": prompt_tokens + output_tokens + thoughts_tokens,
                "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt_tokens}],
                "thoughtsTokenCount": thoughts_tokens,
            },
            "modelVersion": model_version,
            "responseId": token(f"resp:{seed}", 23),
        },
        headers={"content-type": "application/json; charset=UTF-8"},
    )
