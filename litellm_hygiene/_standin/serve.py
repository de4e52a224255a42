"""The stand-in as a local upstream for any LiteLLM route: ``litellm-hygiene standin``.

Examples and a newcomer's first proxy need a provider that answers without keys or
network. Served this way, the stand-in judges every request by the rules of the API it
was sent to (:mod:`.strict`) and answers a valid one with a short canned reply in that
provider's response shape (as Server-Sent Events when an Anthropic Messages or Responses
request asks for a stream, see :mod:`._stream`), so LiteLLM parses it as it parses the
real thing.
"""

from __future__ import annotations

import re

from . import anthropic, bedrock, gemini, mistral, openai_chat
from . import openai_responses as responses
from ._reply import Reply
from ._server import ReceivedRequest
from .rules import WireApi
from .strict import strict

__all__ = ["ANSWER", "answer", "api_of"]

ANSWER = "Hello from the litellm-hygiene stand-in: your request was valid for {api}."
"""The text of every accepted request's answer."""

_MISTRAL = re.compile(r"mistral|mixtral|codestral|pixtral|devstral|ministral|magistral", re.I)
"""Mistral models share OpenAI's route but not its rules (9-character tool ids...)."""

_BY_ROUTE: dict[str, WireApi] = {
    "anthropic-messages": "anthropic-messages",
    "gemini": "gemini",
    "responses": "openai-responses",
    "bedrock": "bedrock-converse",
}


def api_of(request: ReceivedRequest) -> WireApi | None:
    """Which API's rules apply: the route, and for chat completions the model named."""
    if request.route == "chat-completions":
        body = request.body if isinstance(request.body, dict) else {}
        return "mistral" if _MISTRAL.search(str(body.get("model", ""))) else "openai-chat"
    return _BY_ROUTE.get(request.route or "")


def _accept(api: WireApi, model: str) -> Reply:
    text = ANSWER.format(api=api)
    if api == "anthropic-messages":
        return anthropic.message(anthropic.text(text), model=model, seed=model)
    if api == "gemini":
        return gemini.generate_content(gemini.text(text), model_version=model, seed=model)
    if api == "openai-responses":
        return responses.response(responses.message(text, seed=model), model=model, seed=model)
    if api == "bedrock-converse":
        return bedrock.converse(bedrock.text(text))
    if api == "mistral":
        return mistral.completion(text, model=model, seed=model)
    return openai_chat.completion(text, model=model, seed=model)


def answer(request: ReceivedRequest) -> Reply | None:
    """Judge ``request`` by its API's rules: the provider's 400, or a canned answer."""
    api = api_of(request)
    if api is None:
        return None  # an unknown path: the stand-in's own 500 says so
    body = request.body if isinstance(request.body, dict) else {}
    model = str(body.get("model") or "stand-in")
    return strict(api, _accept(api, model))(request)
