"""A local provider stand-in: the tests' recordings, the demo, ``litellm-hygiene standin``.

One builder module per wire format (:mod:`.anthropic`, :mod:`.gemini`,
:mod:`.openai_chat`, :mod:`.openai_responses`, :mod:`.mistral`, :mod:`.bedrock`,
:mod:`.deepseek`); each returns :class:`Reply` objects whose bodies have the exact shape
of the real provider's responses. :class:`StandIn` serves them on 127.0.0.1: from a queue
the tests script, or through a responder: :mod:`.strict` answers what each API refuses
(:mod:`.rules`) with that provider's 400, :mod:`.serve` does so for any route. A request
asking for a stream gets its reply as the provider streams it on the Anthropic Messages
and Responses routes (:mod:`._stream`). It ships in the package because the demo and the
command line use it; it is private, not an API.
"""

from __future__ import annotations

from ._reply import ROUTES, Json, Reply, Route, route_of
from ._server import ReceivedRequest, StandIn

__all__ = ["ROUTES", "Json", "ReceivedRequest", "Reply", "Route", "StandIn", "route_of"]
