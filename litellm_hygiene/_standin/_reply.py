"""A canned reply, and the wire routes the stand-in serves."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["ROUTES", "Json", "Reply", "Route", "route_of"]

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
        headers: Extra response headers (``content-type`` is always JSON).
    """

    route: Route
    body: Json
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)

    def encoded(self) -> bytes:
        """The body bytes as the provider would send them (compact JSON)."""
        return json.dumps(self.body, ensure_ascii=False, separators=(",", ":")).encode()
