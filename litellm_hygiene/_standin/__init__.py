"""A local provider stand-in for recording cassettes, and its reply builders.

One builder module per wire format (:mod:`.anthropic`, :mod:`.gemini`,
:mod:`.openai_chat`, :mod:`.openai_responses`, :mod:`.mistral`, :mod:`.bedrock`,
:mod:`.deepseek`); each returns :class:`Reply` objects whose bodies have the exact shape
of the real provider's responses. :class:`StandIn` serves them on 127.0.0.1.
"""

from __future__ import annotations

from ._reply import ROUTES, Json, Reply, Route, route_of
from ._server import ReceivedRequest, StandIn

__all__ = ["ROUTES", "Json", "ReceivedRequest", "Reply", "Route", "StandIn", "route_of"]
