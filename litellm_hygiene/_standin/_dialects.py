"""Each wire API's side of a scripted tool loop: what a request offers, what answers it.

:mod:`.scripted` plays one step of an agent's tool loop on every route: it needs, per
API, the tools a request offers, whether its history ends on a tool result (then the
loop's closing text is due), whether it asks for thinking, and the two answers in that
provider's shape: its signed thinking (where it has one) with a tool call in its own id
style, and a plain text. :data:`DIALECTS` holds one :class:`Dialect` per API.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from . import anthropic, bedrock, gemini, mistral, openai_chat
from . import openai_responses as responses
from ._reply import Json, Reply
from .rules import WireApi

__all__ = ["DIALECTS", "Dialect"]


@dataclass(frozen=True)
class Dialect:
    """One API's reading of a request and writing of a reply.

    Attributes:
        offered: The names of the tools the request body offers.
        after_result: Whether the history ends on tool results.
        thinks: Whether the request asks for the model's (signed) thinking.
        call: The answer calling ``(name, arguments)``: thinking first when asked.
        text: The plain text answer.
    """

    offered: Callable[[Json], list[str]]
    after_result: Callable[[Json], bool]
    thinks: Callable[[Json], bool]
    call: Callable[[str, str, Json, str, bool], Reply]
    text: Callable[[str, str, str], Reply]


def _last(items: Any) -> Json:
    return items[-1] if isinstance(items, list) and items and isinstance(items[-1], dict) else {}


def _blocks(message: Json, key: str = "content") -> list[Json]:
    found = message.get(key)
    return [b for b in found if isinstance(b, dict)] if isinstance(found, list) else []


def _asks(thinking: Any) -> bool:
    return isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")


def _anthropic_call(model: str, name: str, args: Json, seed: str, think: bool) -> Reply:
    call = anthropic.tool_use(name, args, seed)
    blocks = [anthropic.thinking("I will run the tool.", seed), call] if think else [call]
    return anthropic.message(*blocks, model=model, seed=seed)


def _anthropic_text(model: str, text: str, seed: str) -> Reply:
    return anthropic.message(anthropic.text(text), model=model, seed=seed)


_ANTHROPIC = Dialect(
    offered=lambda body: [str(t.get("name")) for t in body.get("tools") or []],
    after_result=lambda body: any(
        b.get("type") == "tool_result" for b in _blocks(_last(body.get("messages")))
    ),
    thinks=lambda body: _asks(body.get("thinking")),
    call=_anthropic_call,
    text=_anthropic_text,
)


def _bedrock_call(model: str, name: str, args: Json, seed: str, think: bool) -> Reply:
    call = bedrock.tool_use(name, args, seed)
    return bedrock.converse(
        *([bedrock.reasoning("I will run the tool.", seed)] if think else []), call
    )


def _bedrock_thinks(body: Json) -> bool:
    fields = body.get("additionalModelRequestFields")
    return isinstance(fields, dict) and _asks(fields.get("thinking"))


_BEDROCK = Dialect(
    offered=lambda body: [
        str(t.get("toolSpec", {}).get("name")) for t in body.get("toolConfig", {}).get("tools", [])
    ],
    after_result=lambda body: any("toolResult" in b for b in _blocks(_last(body.get("messages")))),
    thinks=_bedrock_thinks,
    call=_bedrock_call,
    text=lambda model, text, seed: bedrock.converse(bedrock.text(text)),
)


def _gemini_offered(body: Json) -> list[str]:
    names = []
    for tool in body.get("tools") or []:
        declarations = tool.get("functionDeclarations", tool.get("function_declarations", []))
        names += [str(d.get("name")) for d in declarations]
    return names


def _gemini_after_result(body: Json) -> bool:
    parts = _blocks(_last(body.get("contents")), "parts")
    return any("functionResponse" in p or "function_response" in p for p in parts)


def _gemini_thinks(body: Json) -> bool:
    config = body.get("generationConfig") or body.get("generation_config") or {}
    thinking = config.get("thinkingConfig") or config.get("thinking_config") or {}
    return bool(thinking.get("includeThoughts") or thinking.get("include_thoughts"))


def _gemini_call(model: str, name: str, args: Json, seed: str, think: bool) -> Reply:
    call = gemini.function_call(name, args, seed)  # signed: Gemini 3 signs every first call
    parts = [gemini.thought("I will run the tool."), call] if think else [call]
    return gemini.generate_content(*parts, model_version=model, seed=seed)


_GEMINI = Dialect(
    offered=_gemini_offered,
    after_result=_gemini_after_result,
    thinks=_gemini_thinks,
    call=_gemini_call,
    text=lambda model, text, seed: gemini.generate_content(
        gemini.text(text, seed), model_version=model, seed=seed
    ),
)


def _chat_offered(body: Json) -> list[str]:
    return [str(t.get("function", {}).get("name")) for t in body.get("tools") or []]


def _chat_after_result(body: Json) -> bool:
    return _last(body.get("messages")).get("role") == "tool"


_OPENAI_CHAT = Dialect(
    offered=_chat_offered,
    after_result=_chat_after_result,
    thinks=lambda body: False,  # Chat Completions returns no reasoning
    call=lambda model, name, args, seed, think: openai_chat.completion(
        None, model=model, seed=seed, tool_calls=[openai_chat.tool_call(name, args, seed)]
    ),
    text=lambda model, text, seed: openai_chat.completion(text, model=model, seed=seed),
)

_MISTRAL = replace(
    _OPENAI_CHAT,
    call=lambda model, name, args, seed, think: mistral.completion(
        "", model=model, seed=seed, tool_calls=[mistral.tool_call(name, args, seed)]
    ),
    text=lambda model, text, seed: mistral.completion(text, model=model, seed=seed),
)


def _responses_call(model: str, name: str, args: Json, seed: str, think: bool) -> Reply:
    call = responses.function_call(name, args, seed)
    items = [responses.reasoning(["I will run the tool."], seed), call] if think else [call]
    return responses.response(*items, model=model, seed=seed)


_RESPONSES = Dialect(
    offered=lambda body: [str(t.get("name")) for t in body.get("tools") or [] if t.get("name")],
    after_result=lambda body: _last(body.get("input")).get("type") == "function_call_output",
    thinks=lambda body: isinstance(body.get("reasoning"), dict),
    call=_responses_call,
    text=lambda model, text, seed: responses.response(
        responses.message(text, seed), model=model, seed=seed
    ),
)

DIALECTS: dict[WireApi, Dialect] = {
    "anthropic-messages": _ANTHROPIC,
    "bedrock-converse": _BEDROCK,
    "gemini": _GEMINI,
    "openai-chat": _OPENAI_CHAT,
    "mistral": _MISTRAL,
    "openai-responses": _RESPONSES,
}
"""Every API the stand-in judges, with its side of a scripted tool loop."""
