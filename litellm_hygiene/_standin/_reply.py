"""A canned reply, and the wire routes the stand-in serves."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from ._eventstream import eventstream_message

__all__ = ["ROUTES", "Framing", "Json", "Reply", "Route", "pieces", "route_of"]

Json = dict[str, Any]

Route = Literal[
    "anthropic-messages", "gemini", "gemini-cache", "chat-completions", "responses", "bedrock"
]
"""The wire endpoints LiteLLM calls (OpenAI Chat, Mistral and DeepSeek share one)."""

Framing = Literal["sse", "sse-data", "sse-data-done", "eventstream"]
"""How a streamed reply's events go on the wire: Server-Sent Events named by their
``type`` (Anthropic, Responses), ``data:`` lines only (Gemini), the same ending in
``data: [DONE]`` (OpenAI Chat, Mistral), or AWS event-stream messages (Bedrock)."""

ROUTES: dict[Route, re.Pattern[str]] = {
    # AnthropicConfig: {api_base}/v1/messages; Claude on Vertex AI (and Bedrock's invoke
    # route) sends the same body to .../publishers/anthropic/models/{model}:rawPredict
    # and .../model/{model}/invoke
    "anthropic-messages": re.compile(
        r"/v1/messages$|/publishers/anthropic/models/[^/]+:rawPredict$"
        r"|/model/[^/]+/invoke(?:-with-response-stream)?$"
    ),
    # VertexBase._check_custom_proxy for gemini: {api_base}/models/{model}:generateContent
    # (:streamGenerateContent?alt=sse for a stream)
    "gemini": re.compile(r"/models/[^/]+:(?:stream)?[gG]enerateContent$"),
    # Gemini context caching with a custom api_base: {api_base}/models/{model}:cachedContents
    # (GET lists the caches, POST creates one)
    "gemini-cache": re.compile(r"/models/[^/]+:cachedContents$|/cachedContents$"),
    # OpenAI SDK {base_url}/chat/completions; Mistral {api_base}/v1/chat/completions;
    # DeepSeek {api_base}/chat/completions
    "chat-completions": re.compile(r"/chat/completions$"),
    # LiteLLM's Responses bridge (openai/responses/<model>): {api_base}/responses
    "responses": re.compile(r"/responses$"),
    # AmazonConverseConfig: {endpoint}/model/{quoted model id}/converse
    "bedrock": re.compile(r"/model/[^/]+/converse$"),
}


def route_of(path: str) -> Route | None:
    """The route a request path belongs to, ignoring the query string."""
    bare = path.split("?", 1)[0]
    for name, pattern in ROUTES.items():
        if pattern.search(bare):
            return name
    return None


@dataclass(frozen=True)
class Reply:
    """One HTTP answer the stand-in gives to the next request on ``route``.

    Attributes:
        route: The endpoint this reply answers.
        body: The JSON body, in the exact shape the real provider sends.
        status: The HTTP status.
        headers: Extra response headers (``content-type`` follows :attr:`events`).
        events: ``None`` for a JSON reply; for a streamed one, the events that carry
            ``body``'s answer, in order.
        framing: How ``events`` are written (:data:`Framing`).
    """

    route: Route
    body: Json
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    events: tuple[Json, ...] | None = None
    framing: Framing = "sse"

    @property
    def content_type(self) -> str:
        """JSON, or the streamed reply's media type."""
        if self.events is None:
            return "application/json"
        if self.framing == "eventstream":
            return "application/vnd.amazon.eventstream"
        return "text/event-stream"

    def encoded(self) -> bytes:
        """The body bytes as the provider would send them (compact JSON)."""
        return _compact(self.body)

    def frames(self) -> Iterator[bytes]:
        """What goes on the wire, in the pieces it is written in.

        A JSON reply is one piece; a streamed one is one ``event:``/``data:`` frame per
        event, as Anthropic and OpenAI send them.
        """
        if self.events is None:
            yield self.encoded()
            return
        for event in self.events:
            if self.framing == "eventstream":
                yield eventstream_message(_compact(event))
            elif self.framing == "sse":
                yield (
                    b"event: "
                    + str(event["type"]).encode()
                    + b"\ndata: "
                    + _compact(event)
                    + b"\n\n"
                )
            else:
                yield b"data: " + _compact(event) + b"\n\n"
        if self.framing == "sse-data-done":
            yield b"data: [DONE]\n\n"


def _compact(value: Json) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def pieces(text: str, size: int = 12) -> list[str]:
    """``text`` cut in ``size``-character deltas, as a stream sends it (one ``""`` if empty)."""
    return [text[start : start + size] for start in range(0, len(text), size)] or [""]
