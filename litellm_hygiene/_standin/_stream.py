"""Streamed replies: a request with ``"stream": true`` gets its answer as the provider streams it.

Anthropic Messages and OpenAI Responses answer such a request with Server-Sent Events
that carry, piece by piece, the same message or response a plain request gets
(:func:`.anthropic.stream_events`, :func:`.openai_responses.stream_events`). A request
either API refuses still gets the plain JSON error: both check the request before they
start a stream, so the 400 arrives as an ordinary response.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from . import anthropic, openai_responses
from ._reply import Json, Reply, Route

__all__ = ["STREAM_EVENTS", "as_requested", "streamed"]

STREAM_EVENTS: dict[Route, Callable[[Json], list[Json]]] = {
    "anthropic-messages": anthropic.stream_events,
    "responses": openai_responses.stream_events,
}
"""The events each streaming route sends a successful body as. Bedrock's invoke route
and Vertex AI stream Claude on other paths (``invoke-with-response-stream``,
``:streamRawPredict``) the stand-in does not serve."""


def streamed(reply: Reply) -> Reply:
    """``reply`` as a stream: an error, or a route without a stream form, stays as it is."""
    to_events = STREAM_EVENTS.get(reply.route)
    if to_events is None or reply.status != 200 or reply.events is not None:
        return reply
    return replace(reply, events=tuple(to_events(reply.body)))


def as_requested(body: Any, reply: Reply) -> Reply:
    """``reply`` streamed when the request ``body`` asks for a stream, else as it is."""
    asks = isinstance(body, dict) and body.get("stream") is True
    return streamed(reply) if asks else reply
