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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

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


def _report(response: Any) -> dict[str, int]:
    hidden = getattr(response, "_hidden_params", None) or {}
    report = hidden.get("litellm_hygiene") or {}
    return dict(report.get("changes") or {})


async def _attempt(
    target: DemoTarget, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> Attempt:
    import litellm

    judge = strict(target.api, target.accept)
    statuses: list[int] = []

    def respond(request: ReceivedRequest) -> Reply:
        reply = judge(request)
        statuses.append(reply.status)
        return reply

    with StandIn(respond=respond) as server:
        kwargs: dict[str, Any] = {
            "api_base": server.base_url + target.base_path,
            "api_key": "sk-demo-not-a-real-key",
            "max_tokens": 512,
            "num_retries": 0,
            "max_retries": 0,
            **target.kwargs,
        }
        try:
            response = await litellm.acompletion(
                model=target.model, messages=messages, tools=tools, **kwargs
            )
        except Exception as err:  # the provider's 400, or LiteLLM refusing locally
            error: str | None = f"{type(err).__name__}: {err}"
            response = None
        else:
            error = None
        received: list[ReceivedRequest] = list(server.received)
    sent = received[-1].body if received else None
    answer = response.choices[0].message.content if response is not None else None
    return Attempt(
        sent=sent,
        status=statuses[-1] if statuses else None,
        error=error,
        problems=problems(target.api, sent) if sent is not None else [],
        changes=_report(response) if response is not None else {},
        answer=answer,
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
