"""Send the demo conversation through LiteLLM's real request path, without and with hygiene.

Each request is a real ``litellm.acompletion`` call: LiteLLM transforms the messages for
the provider and posts them over HTTP to the stand-in on 127.0.0.1, which answers as
the provider would (:mod:`litellm_hygiene._standin.strict`): a success for a body the
real API accepts, its 400 otherwise. First every target is tried with no callback
(LiteLLM alone), then every target with :class:`HygieneCallback` registered, because
LiteLLM keeps a registered callback in its own lists once it has seen it.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from .._anthropic import to_anthropic
from .._openai import from_openai
from .._responses import to_responses
from .._standin import ReceivedRequest, Reply, StandIn
from .._standin.rules import WireProblem, problems
from .._standin.strict import strict
from ._targets import DEMO_TARGETS, DemoTarget, load_conversation

__all__ = ["CALLBACK_LISTS", "Attempt", "Outcome", "run_demo"]

CALLBACK_LISTS = (
    "callbacks",
    "input_callback",
    "success_callback",
    "failure_callback",
    "_async_input_callback",
    "_async_success_callback",
    "_async_failure_callback",
)
"""LiteLLM's module-level callback lists, saved and restored around the demo."""


@dataclass(frozen=True)
class Attempt:
    """One request to one target.

    Attributes:
        sent: The wire body LiteLLM posted (``None`` when LiteLLM raised before sending).
        status: The stand-in's HTTP status (``None`` when nothing was sent).
        error: ``"<exception type>: <message>"`` as the caller saw it, ``None`` on success.
        problems: What the provider's rules find in ``sent``, in order.
        changes: What hygiene changed, per kind (empty without hygiene).
        answer: The model's answer, on success.
    """

    sent: Any
    status: int | None
    error: str | None
    problems: list[WireProblem] = field(default_factory=list)
    changes: dict[str, int] = field(default_factory=dict)
    answer: str | None = None

    @property
    def accepted(self) -> bool:
        """The provider accepted the request and the caller got an answer."""
        return self.error is None and self.status == 200


@dataclass(frozen=True)
class Outcome:
    """One target: LiteLLM alone beside LiteLLM with hygiene."""

    target: DemoTarget
    alone: Attempt
    hygiene: Attempt


@contextmanager
def _callbacks(callbacks: list[Any]) -> Iterator[None]:
    """Only ``callbacks`` registered, and LiteLLM's "Give Feedback" banner off, for the block.

    A rejected request is the expected outcome here, and LiteLLM prints that banner to
    stdout on every failed call unless ``suppress_debug_info`` is set.
    """
    import litellm

    saved = {name: list(getattr(litellm, name)) for name in CALLBACK_LISTS}
    quiet = litellm.suppress_debug_info
    for name in CALLBACK_LISTS:
        setattr(litellm, name, [])
    litellm.callbacks = callbacks
    litellm.suppress_debug_info = True
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(litellm, name, value)
        litellm.suppress_debug_info = quiet


def _report(response: Any, call_id: str) -> dict[str, int]:
    """What hygiene changed, by kind.

    From the report on the answer; an answer of another shape carries none, and the
    registered callback keeps the call's report instead.
    """
    hidden = getattr(response, "_hidden_params", None) or {}
    report = hidden.get("litellm_hygiene")
    if report:
        return dict(report.get("changes") or {})
    import litellm

    from .. import HygieneCallback

    for callback in litellm.callbacks:
        if isinstance(callback, HygieneCallback):
            kept = callback.report_for(call_id)
            return dict(kept.changes) if kept is not None else {}
    return {}


def _call(
    target: DemoTarget, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> tuple[Callable[..., Awaitable[Any]], dict[str, Any]]:
    """The LiteLLM call of ``target``'s route, and its conversation in that route's shape.

    The recorded chat conversation is read into the neutral model and written as Claude
    Code (Anthropic Messages) or Codex (Responses items) would send it.
    """
    import litellm
    from litellm.anthropic_interface import messages as anthropic_messages

    if target.route == "chat":
        return litellm.acompletion, {"messages": messages, "tools": tools, "num_retries": 0}
    context = from_openai(messages)
    functions = [tool["function"] for tool in tools]
    if target.route == "messages":
        wire, _ = to_anthropic(context.model_copy(update={"system_prompt": None}))
        anthropic_tools = [
            {
                "name": f["name"],
                "description": f.get("description", ""),
                "input_schema": f["parameters"],
            }
            for f in functions
        ]
        call: dict[str, Any] = {"messages": wire, "tools": anthropic_tools}
        if context.system_prompt is not None:
            call["system"] = context.system_prompt
        return anthropic_messages.acreate, call
    items, instructions = to_responses(context)
    responses_tools = [{"type": "function", **f} for f in functions]
    call = {"input": items, "tools": responses_tools, "instructions": instructions}
    return litellm.aresponses, call


def _answer(response: Any) -> str | None:
    if response is None:
        return None
    if isinstance(response, dict):  # an Anthropic message
        return str(response["content"][0]["text"])
    choices = getattr(response, "choices", None)
    if choices:
        return str(choices[0].message.content)
    return str(response.output[0].content[0].text)  # a Responses answer


async def _attempt(
    target: DemoTarget, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> Attempt:
    judge = strict(target.api, target.accept)
    statuses: list[int] = []

    def respond(request: ReceivedRequest) -> Reply:
        reply = judge(request)
        statuses.append(reply.status)
        return reply

    send, conversation = _call(target, messages, tools)
    call_id = str(uuid.uuid4())
    with StandIn(respond=respond) as server:
        kwargs: dict[str, Any] = {
            "api_base": server.base_url + target.base_path,
            "api_key": "sk-demo-not-a-real-key",
            "max_retries": 0,
            "litellm_call_id": call_id,
            **({"max_tokens": 512} if target.route != "responses" else {}),
            **conversation,
            **target.kwargs,
        }
        try:
            response = await send(model=target.model, **kwargs)
        except Exception as err:  # the provider's 400, or LiteLLM refusing locally
            error: str | None = f"{type(err).__name__}: {err}"
            response = None
        else:
            error = None
        received: list[ReceivedRequest] = list(server.received)
    sent = received[-1].body if received else None
    return Attempt(
        sent=sent,
        status=statuses[-1] if statuses else None,
        error=error,
        problems=problems(target.api, sent) if sent is not None else [],
        changes=_report(response, call_id) if response is not None else {},
        answer=_answer(response),
    )


async def run_demo(
    targets: Sequence[DemoTarget] = DEMO_TARGETS,
    conversation: tuple[list[dict[str, Any]], list[dict[str, Any]]] | None = None,
) -> list[Outcome]:
    """Switch the conversation to every target, LiteLLM alone and with hygiene.

    Args:
        targets: The families to visit.
        conversation: ``(messages, tools)``; the embedded one by default.

    Returns:
        One outcome per target, in order. The caller's messages are never changed (each
        request gets its own deep copy, so LiteLLM's own in-place edits stay local too).
    """
    from .. import HygieneCallback

    messages, tools = conversation if conversation is not None else load_conversation()
    alone: list[Attempt] = []
    with _callbacks([]):
        for target in targets:
            alone.append(await _attempt(target, copy.deepcopy(messages), tools))
    with _callbacks([HygieneCallback()]):
        helped = [await _attempt(t, copy.deepcopy(messages), tools) for t in targets]
    return [Outcome(t, a, h) for t, a, h in zip(targets, alone, helped, strict=True)]
