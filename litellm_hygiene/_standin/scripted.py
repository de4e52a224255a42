"""Scripted mode: every request judged, every valid one answered as a step of a tool loop.

A real coding agent (Claude Code, Codex) driven through a LiteLLM proxy needs providers
that behave like models: asked with tools, they call one; given its result, they answer.
:class:`Scripted` is a :class:`.StandIn` responder that does exactly that on every
route, after judging the request by its API's rules (:func:`.strict.judge`, the
provider's 400 for anything the real API refuses):

1. a history that ends on tool results gets the closing text (:attr:`Script.answer`);
2. else, a request offering a tool the :class:`Script` names gets the provider's signed
   thinking (when the request asks for thinking and the provider has it) and a call of
   that tool in the provider's own id style (``toolu_``, ``call_``, 9 alphanumerics for
   Mistral, a signed Gemini ``functionCall``);
3. else, the text.

A model in :attr:`Script.overloaded` answers a tool result with the provider's
"overloaded" error instead (Anthropic's 529), so a client's fallback model takes over
mid tool loop. Answers are streamed as the request asks: Server-Sent Events on the
Anthropic, Responses, Chat Completions (OpenAI and Mistral) and Gemini
(``:streamGenerateContent``) routes, an AWS event stream on Bedrock's
``invoke-with-response-stream``. Gemini's ``cachedContents`` (LiteLLM creates one
before a call whose history carries ``cache_control``) is served too: the cached turns
and the new ones are judged as one history. Every decision is kept in
:attr:`Scripted.verdicts`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from typing import Literal

from . import anthropic, openai_chat
from ._dialects import DIALECTS
from ._ids import token
from ._reply import Json, Reply
from ._server import ReceivedRequest
from .rules import WireApi
from .serve import api_of
from .strict import judge, model_of, provider_message, rejection

__all__ = ["Script", "Scripted", "Verdict"]

Outcome = Literal["call", "text", "overloaded", "rejected", "cache", "unknown"]
"""What the stand-in answered: a tool call, the text, an overloaded error, the API's 400,
a context-cache operation, or its own 500 for a path it does not serve."""


@dataclass
class Script:
    """What the scripted models do; the test changes it between steps.

    Attributes:
        calls: Tool name to arguments: a request is answered with a call of the first
            of these tools it offers (in this order).
        answer: The text that closes a tool loop (and answers a request with no tool).
        overloaded: Models (as the provider sees the name) that answer a tool result
            with the provider's overloaded error.
    """

    calls: dict[str, Json] = field(default_factory=dict)
    answer: str = "Done: the tool ran."
    overloaded: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Verdict:
    """One request, and what the scripted stand-in made of it.

    Attributes:
        api: The API whose rules judged it (``None`` for an unknown path).
        model: The model it asked for.
        path: The request path, without the query string.
        outcome: What was answered.
        status: The HTTP status answered.
        problems: What the real API would have refused, in its words (empty if valid).
        tool: The tool called, for a ``call``.
    """

    api: WireApi | None
    model: str
    path: str
    outcome: Outcome
    status: int
    problems: tuple[str, ...] = ()
    tool: str = ""

    @property
    def judged(self) -> bool:
        """Whether the request was judged by its API's rules (a model call)."""
        return self.api is not None and self.outcome != "cache"


class Scripted:
    """A :class:`.StandIn` responder that plays a scripted tool loop on every route."""

    def __init__(self, script: Script | None = None) -> None:
        """Play ``script`` (an empty one by default: every request gets the text)."""
        self.script = script or Script()
        self.verdicts: list[Verdict] = []
        self._caches: dict[str, Json] = {}
        self._lock = threading.Lock()

    def __call__(self, request: ReceivedRequest) -> Reply:
        """Judge ``request`` and answer it as the script says."""
        verdict, reply = self._answer(request)
        with self._lock:
            self.verdicts.append(verdict)
        return reply

    def _answer(self, request: ReceivedRequest) -> tuple[Verdict, Reply]:
        path = request.path.split("?", 1)[0]
        model = model_of(request)
        if request.route == "gemini-cache":
            return Verdict("gemini", model, path, "cache", 200), self._cache(request)
        api = api_of(request)
        body = request.body if isinstance(request.body, dict) else {}
        if api is None:
            error = {"error": {"message": f"no such path {path}", "type": "standin_error"}}
            return Verdict(None, model, path, "unknown", 500), Reply("responses", error, 500)
        if api == "gemini" and isinstance(body.get("cachedContent"), str):
            body = self._with_cache(body)
            request = replace(request, body=body)
        found = judge(api, request)
        if found:
            said = tuple(provider_message(api, p) for p in found)
            return Verdict(api, model, path, "rejected", 400, said), rejection(api, found)
        verdict, reply = self._play(api, model, path, body)
        return verdict, _streamed(request, reply)

    def _play(self, api: WireApi, model: str, path: str, body: Json) -> tuple[Verdict, Reply]:
        dialect = DIALECTS[api]
        seed = f"{model}:{len(self.verdicts)}"
        if dialect.after_result(body):
            if model in self.script.overloaded:
                return Verdict(api, model, path, "overloaded", 529), _overloaded(seed)
            return Verdict(api, model, path, "text", 200), dialect.text(
                model, self.script.answer, seed
            )
        offered = dialect.offered(body)
        name = next((n for n in self.script.calls if n in offered), None)
        if name is None:
            return Verdict(api, model, path, "text", 200), dialect.text(
                model, self.script.answer, seed
            )
        reply = dialect.call(model, name, self.script.calls[name], seed, dialect.thinks(body))
        return Verdict(api, model, path, "call", 200, tool=name), reply

    def _cache(self, request: ReceivedRequest) -> Reply:
        """Gemini's ``cachedContents``: GET lists the caches, POST creates one."""
        with self._lock:
            if request.method == "GET":
                listed = [
                    {k: v for k, v in c.items() if k in ("name", "displayName", "model")}
                    for c in self._caches.values()
                ]
                return Reply("gemini-cache", {"cachedContents": listed})
            body = request.body if isinstance(request.body, dict) else {}
            name = "cachedContents/" + token(f"cache:{body.get('displayName')}", 12).lower()
            self._caches[name] = {**body, "name": name}
        created = {"name": name, "model": body.get("model"), "displayName": body.get("displayName")}
        return Reply("gemini-cache", created)

    def _with_cache(self, body: Json) -> Json:
        """The request with its cached turns (and tools, system) in front: one history."""
        with self._lock:
            cached = self._caches.get(str(body["cachedContent"]), {})
        whole = {k: v for k, v in cached.items() if k in ("tools", "system_instruction")}
        whole |= {k: v for k, v in body.items() if v is not None}
        whole["contents"] = [*cached.get("contents", []), *body.get("contents", [])]
        return whole


def _overloaded(seed: str) -> Reply:
    return anthropic.error(529, "overloaded_error", "Overloaded", seed)


def _streamed(request: ReceivedRequest, reply: Reply) -> Reply:
    """``reply`` as the request asks for it, where the generic stream does not apply.

    Anthropic Messages and Responses stream by the body's ``stream`` (the stand-in does
    that itself); here: Chat Completions by the body, Gemini by its path, and Claude on
    Bedrock's ``invoke-with-response-stream`` as an AWS event stream.
    """
    if reply.status != 200:
        return reply
    path = request.path.split("?", 1)[0]
    body = request.body if isinstance(request.body, dict) else {}
    if reply.route == "chat-completions" and body.get("stream") is True:
        events = tuple(openai_chat.stream_events(reply.body))
        return replace(reply, events=events, framing="sse-data-done")
    if reply.route == "gemini" and path.endswith(":streamGenerateContent"):
        return replace(reply, events=(reply.body,), framing="sse-data", headers={})
    if path.endswith("/invoke-with-response-stream"):
        events = tuple(anthropic.stream_events(reply.body))
        return replace(reply, events=events, framing="eventstream")
    return reply
