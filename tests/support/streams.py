"""What a streaming client keeps of a stream: the answer, rebuilt from its events.

Claude Code rebuilds an Anthropic message's content blocks from the Server-Sent Events
``litellm.anthropic.messages.acreate(stream=True)`` hands it as bytes; Codex keeps each
Responses output item as its ``response.output_item.done`` event gives it. The next
request sends those back as history, so they are what the tests send back. The readers
are pure; :func:`remembered` waits for LiteLLM's logging, which records a stream's
provenance only after the stream ended.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import warnings
from collections.abc import Iterable
from typing import Any

from litellm.types.utils import ModelResponseStream

from litellm_hygiene._integration._store import Provenance, ProvenanceStore
from litellm_hygiene._integration._store._fingerprints import lookup_keys
from tests.support.cassettes import READONLY_WARNING


def warm_up_streams() -> None:
    """Build what LiteLLM builds on its first ``/v1/messages`` stream, its warning silenced.

    Pydantic warns when it first builds a schema holding a ``ReadOnly`` TypedDict item:
    the pass-through logging module's ``TinyfishRun`` adapter on import, and a stream
    chunk's ``Delta`` (``ChatCompletionReasoningItem``) on its first use. LiteLLM
    silences that warning when it is imported; ``-W error`` turns it back on, and then
    the first stream fails (the import) or, worse, LiteLLM's logging assembles the
    stream's answer without its message (the first ``Delta``), so its provenance is
    never recorded. See ``tests.support.cassettes.warm_up_litellm``.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=READONLY_WARNING, category=UserWarning)
        importlib.import_module("litellm.proxy.pass_through_endpoints.streaming_handler")
        ModelResponseStream()


def sse_events(chunks: Iterable[bytes]) -> list[dict[str, Any]]:
    """The events of an SSE byte stream (cut anywhere), each checked to be named by its type."""
    events = []
    for frame in b"".join(chunks).decode().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in frame.splitlines() if line)
        if not lines:
            continue
        event = json.loads(lines["data"])
        assert lines["event"] == event["type"], frame
        events.append(event)
    return events


def anthropic_content(events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The content blocks of a streamed Anthropic message, as a client rebuilds them."""
    blocks: list[dict[str, Any]] = []
    partial: dict[int, str] = {}
    for event in events:
        if event["type"] == "content_block_start":
            blocks.append(dict(event["content_block"]))
        elif event["type"] == "content_block_delta":
            block, delta = blocks[event["index"]], event["delta"]
            if delta["type"] == "input_json_delta":
                partial[event["index"]] = partial.get(event["index"], "") + delta["partial_json"]
            else:
                field = {"text_delta": "text", "thinking_delta": "thinking"}.get(delta["type"])
                if field is None:  # signature_delta: the whole signature at once
                    block["signature"] = delta["signature"]
                else:
                    block[field] += delta[field]
        elif event["type"] == "content_block_stop" and event["index"] in partial:
            blocks[event["index"]]["input"] = json.loads(partial.pop(event["index"]) or "{}")
    return blocks


def done_items(events: Iterable[Any]) -> list[dict[str, Any]]:
    """A Responses stream's output items, as their ``output_item.done`` events give them."""
    items = [event.item for event in events if event.type == "response.output_item.done"]
    return [dict(i) if isinstance(i, dict) else i.model_dump(exclude_none=True) for i in items]


async def remembered(store: ProvenanceStore | None, turn: Any) -> Provenance:
    """The provenance ``store`` holds for the chat ``turn``, once LiteLLM logged the stream."""
    assert store is not None
    for _ in range(200):
        found = store.get(lookup_keys(turn))
        if found is not None:
            return found
        await asyncio.sleep(0.02)
    raise AssertionError("the streamed answer was never remembered")
