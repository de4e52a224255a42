"""OpenAI Responses API response bodies (``POST /v1/responses``).

Shapes follow real ``gpt-5`` recordings: ``output`` holds ``reasoning`` items (``rs_``
ids, ``encrypted_content``, ``summary_text`` parts), ``function_call`` items (``fc_`` item
ids, ``call_`` call ids) and ``message`` items (``msg_`` ids, ``output_text`` parts).
"""

from __future__ import annotations

import json
from typing import Any

from ._ids import CREATED, HEX, token
from ._reply import Json, Reply, Route

__all__ = ["function_call", "message", "reasoning", "response"]

ROUTE: Route = "responses"
_SUFFIX = "0e8bc41441c948f6"


def _item_id(prefix: str, seed: str) -> str:
    return f"{prefix}_68c4{token(f'{prefix}:{seed}', 28, HEX)}{_SUFFIX}"


def reasoning(summary: list[str], seed: str) -> Json:
    """A reasoning item with its encrypted content (Fernet-looking, opaque)."""
    return {
        "id": _item_id("rs", seed),
        "type": "reasoning",
        "encrypted_content": "gAAAAABoxC0_" + token(f"enc:{seed}", 400),
        "summary": [{"type": "summary_text", "text": s} for s in summary],
    }


def function_call(name: str, arguments: dict[str, Any], seed: str) -> Json:
    """A function call item: ``fc_`` item id, ``call_`` call id."""
    return {
        "id": _item_id("fc", seed),
        "type": "function_call",
        "status": "completed",
        "arguments": json.dumps(arguments),
        "call_id": "call_" + token(f"call:{seed}", 24),
        "name": name,
    }


def message(text: str, seed: str) -> Json:
    """An assistant message item."""
    return {
        "id": _item_id("msg", seed),
        "type": "message",
        "status": "completed",
        "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": text}],
        "role": "assistant",
    }


def response(
    *output: Json,
    model: str,
    seed: str,
    input_tokens: int = 120,
    output_tokens: int = 400,
    reasoning_tokens: int = 320,
) -> Reply:
    """A completed ``response`` object."""
    return Reply(
        route=ROUTE,
        body={
            "id": _item_id("resp", seed),
            "object": "response",
            "created_at": CREATED,
            "status": "completed",
            "background": False,
            "error": None,
            "incomplete_details": None,
            "instructions": None,
            "max_output_tokens": None,
            "max_tool_calls": None,
            "model": model,
            "output": list(output),
            "parallel_tool_calls": True,
            "previous_response_id": None,
            "prompt_cache_key": None,
            "reasoning": {"effort": "medium", "summary": "detailed"},
            "safety_identifier": None,
            "service_tier": "default",
            "store": True,
            "temperature": 1.0,
            "text": {"format": {"type": "text"}, "verbosity": "medium"},
            "tool_choice": "auto",
            "tools": [],
            "top_logprobs": 0,
            "top_p": 1.0,
            "truncation": "disabled",
            "usage": {
                "input_tokens": input_tokens,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": output_tokens,
                "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
                "total_tokens": input_tokens + output_tokens,
            },
            "user": None,
            "metadata": {},
        },
    )
