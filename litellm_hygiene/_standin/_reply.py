"""A canned reply, and the wire routes the stand-in serves."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["ROUTES", "Json", "Reply", "Route", "pieces", "route_of"]

Json = dict[str, Any]

Route = Literal["anthropic-messages", "gemini", "chat-completions", "responses", "bedrock"]
"""The wire endpoints LiteLLM calls (OpenAI Chat, Mistral and DeepSeek share one)."""

ROUTES: dict[Route, re.Pattern[str]] = {
    # AnthropicConfig: {api_base}/v1/messages; Claude on Vertex AI (and Bedrock's invoke
    # route) sends the same body to .../publishers/anthropic/models/{model}:rawPredict
    # and .../model/{model}/invoke
    "anthropic-messages": re.compile(
        r"/v1/messages$|/publishers/anthropic/models/[^/]+:rawPredict$|/model/[^/]+/invoke$"
    ),
    # VertexBase._check_custom_proxy for gemini: {api_base}/models/{model}:generateContent
    "gemini": re.compile(r"/models/[^/]+:generateContent$"),
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
        events: ``None`` for a JSON reply; for a streamed one, the Server-Sent Events
            (each named by its ``type``) that carry ``body``'s answer, in order.
    """

    route: Route
    body: Json
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    events: tuple[Json, ...] | None = None

    @property
    def content_type(self) -> str:
        """``text/event-stream`` for a streamed reply, else JSON."""
        return "application/json" if self.events is None else "text/event-stream"

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
            yield b"event: " + str(event["type"]).encode() + b"\ndata: " + _compact(event) + b"\n\n"


def _compact(value: Json) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def pieces(text: str, size: int = 12) -> list[str]:
    """``text`` cut in ``size``-character deltas, as a stream sends it (one ``""`` if empty)."""
    return [text[start : start + size] for start in range(0, len(text), size)] or [""]
