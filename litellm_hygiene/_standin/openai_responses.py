"""OpenAI Responses API response bodies (``POST /v1/responses``).

Shapes follow real ``gpt-5`` recordings: ``output`` holds ``reasoning`` items (``rs_``
ids, ``encrypted_content``, ``summary_text`` parts), ``function_call`` items (``fc_`` item
ids, ``call_`` call ids) and ``message`` items (``msg_`` ids, ``output_text`` parts). A
streamed response (``"stream": true``) is the event sequence of :func:`stream_events`.
"""

from __future__ import annotations

import json
from typing import Any

from ._ids import CREATED, HEX, token
from ._reply import Json, Reply, Route, pieces

__all__ = ["function_call", "message", "reasoning", "response", "stream_events"]

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


def stream_events(body: Json) -> list[Json]:
    """The Server-Sent Events OpenAI streams the ``response`` body as.

    ``response.created`` and ``response.in_progress`` (the response, ``in_progress``, no
    output, no usage yet); each output item as ``response.output_item.added`` (the item
    without its content) ... ``response.output_item.done`` (the item), around its parts'
    events: a message's ``output_text`` parts as ``content_part.added``, text ``delta``
    pieces, ``output_text.done`` and ``content_part.done``; a reasoning item's summaries
    likewise as ``reasoning_summary_part``/``reasoning_summary_text`` events; a function
    call's arguments as ``function_call_arguments`` pieces and ``.done``. Last comes
    ``response.completed``, whose response is ``body``. Every event carries its
    ``sequence_number``; there is no ``[DONE]`` line.
    """
    opened = {**body, "status": "in_progress", "output": [], "usage": None}
    events: list[Json] = [
        {"type": "response.created", "response": opened},
        {"type": "response.in_progress", "response": opened},
    ]
    for index, item in enumerate(body["output"]):
        started, parts = _item_events(index, item)
        events.append(
            {"type": "response.output_item.added", "output_index": index, "item": started}
        )
        events += parts
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    events.append({"type": "response.completed", "response": body})
    return [{"type": e["type"], "sequence_number": n, **e} for n, e in enumerate(events)]


def _item_events(index: int, item: Json) -> tuple[Json, list[Json]]:
    """The item as ``output_item.added`` shows it, and the events of its parts."""
    at = {"item_id": item["id"], "output_index": index}
    if item["type"] == "message":
        parts = [e for n, part in enumerate(item["content"]) for e in _text_events(at, n, part)]
        return {**item, "status": "in_progress", "content": []}, parts
    if item["type"] == "reasoning":
        summaries = enumerate(item["summary"])
        parts = [e for n, part in summaries for e in _summary_events(at, n, part)]
        return {**item, "summary": []}, parts
    if item["type"] == "function_call":
        deltas = [
            {"type": "response.function_call_arguments.delta", **at, "delta": piece}
            for piece in pieces(item["arguments"])
        ]
        done = {"type": "response.function_call_arguments.done", **at, "name": item["name"]}
        done["arguments"] = item["arguments"]
        return {**item, "status": "in_progress", "arguments": ""}, [*deltas, done]
    return item, []  # an item with no part events: added and done whole


def _text_events(at: Json, content_index: int, part: Json) -> list[Json]:
    where = {**at, "content_index": content_index}
    empty = {**part, "text": ""}
    return [
        {"type": "response.content_part.added", **where, "part": empty},
        *(
            {"type": "response.output_text.delta", **where, "delta": piece, "logprobs": []}
            for piece in pieces(part["text"])
        ),
        {"type": "response.output_text.done", **where, "text": part["text"], "logprobs": []},
        {"type": "response.content_part.done", **where, "part": part},
    ]


def _summary_events(at: Json, summary_index: int, part: Json) -> list[Json]:
    where = {**at, "summary_index": summary_index}
    return [
        {"type": "response.reasoning_summary_part.added", **where, "part": {**part, "text": ""}},
        *(
            {"type": "response.reasoning_summary_text.delta", **where, "delta": piece}
            for piece in pieces(part["text"])
        ),
        {"type": "response.reasoning_summary_text.done", **where, "text": part["text"]},
        {"type": "response.reasoning_summary_part.done", **where, "part": part},
    ]
