"""The stand-in as a strict provider: a request the real API would refuse gets its error.

:mod:`.rules` says what each API rejects in a request body; this module answers such a
request the way the provider does, with HTTP 400 in the provider's own error envelope
(Anthropic's ``{"type": "error", ...}``, OpenAI's ``{"error": {...}}``, Mistral's
``{"object": "error", ...}``, Google's ``{"error": {"status": "INVALID_ARGUMENT"}}``,
Bedrock's ``{"message": ...}`` with ``x-amzn-errortype``), so LiteLLM maps it to the same
exception class a user would see. The message names what the rules found: the stand-in
knows the rules, not each provider's exact sentence (``litellm-hygiene check`` quotes
those).
"""

from __future__ import annotations

from collections.abc import Callable

from . import anthropic, openai_chat
from ._reply import Json, Reply, Route
from ._server import ReceivedRequest
from .rules import WireApi, violations

__all__ = ["ROUTE_OF_API", "rejection", "strict"]

ROUTE_OF_API: dict[WireApi, Route] = {
    "anthropic": "anthropic-messages",
    "bedrock": "bedrock",
    "gemini": "gemini",
    "openai-chat": "chat-completions",
    "mistral": "chat-completions",
    "responses": "responses",
}
"""The endpoint each wire API is served on."""


def _message(found: list[str]) -> str:
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return f"Invalid request: {found[0]}{more}"


def rejection(api: WireApi, found: list[str]) -> Reply:
    """The 400 ``api`` answers a request in which its rules ``found`` these problems."""
    text = _message(found)
    route = ROUTE_OF_API[api]
    if api == "anthropic":
        return anthropic.error(400, "invalid_request_error", text, seed=text)
    if api == "bedrock":
        errortype = "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"
        return Reply(
            route=route, status=400, body={"message": text}, headers={"x-amzn-errortype": errortype}
        )
    if api == "gemini":
        body: Json = {"error": {"code": 400, "message": text, "status": "INVALID_ARGUMENT"}}
        return Reply(route=route, status=400, body=body)
    if api == "mistral":
        body = {  # Mistral's own envelope, not OpenAI's
            "object": "error",
            "message": text,
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        }
        return Reply(route=route, status=400, body=body)
    reply = openai_chat.error(400, text, "invalid_request_error")
    return Reply(route=route, status=400, body=reply.body)


def strict(api: WireApi, accept: Reply) -> Callable[[ReceivedRequest], Reply]:
    """A responder for :class:`.StandIn`: ``accept`` for a valid body, else the error."""

    def respond(request: ReceivedRequest) -> Reply:
        found = violations(api, request.body) if isinstance(request.body, dict) else ["no body"]
        return rejection(api, found) if found else accept

    return respond
