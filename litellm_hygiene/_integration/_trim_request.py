"""Trimming in the callback: each deployment gets a transcript that fits *its* window.

A Router fallback, including ``context_window_fallbacks``, hands the same history to a
model with a smaller window; the deployment hook runs again for that hop, so trimming
here, for the resolved deployment, makes each hop's request fit its own window. Order,
and why: the rules run first (the history is made valid for the target); then the
sliding window, after which the rules run again (a window may start with an assistant
turn, which Anthropic, Gemini and Mistral refuse: fixing that is the rules' job); then
the fit to the window, which keeps what the rules accept and so leaves them nothing to
find. Last, the rules settle the request's parameters on what is finally sent: a cut
drops the signed thinking of the turns it keeps, and Claude, asked to think, refuses an
unfinished tool loop whose turn lost it (``thinking_tool_loop``). A request that cannot
fit even its system messages and latest user turn is refused with
``ContextWindowExceededError`` before it is sent.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from .._errors import ConfigurationError
from .._executor import read_conversation, run_rules
from .._openai._wire import OPENAI
from .._pipeline import context_for
from .._policy import Policy
from .._rules import RULES, Change, RuleContext
from .._rules._findings import counted
from .._rules.hygiene_stamp import BOOKKEEPING
from .._target import TargetModel
from .._trim import SlidingWindow, drop_thinking_after, fit_to_context
from .._view import Wire
from ._options import HygieneOptions

__all__ = ["TrimOutcome", "trim_request"]

logger = logging.getLogger("litellm_hygiene")


@dataclass
class TrimOutcome:
    """What trimming did to one request.

    Attributes:
        messages: The messages to send.
        removed: Messages of the (sanitized) transcript left out.
        tokens: Input tokens after fitting, when fitted.
        context_window: The window fitted to, when fitted.
        thinking_dropped: Kept turns whose signed thinking was dropped.
        changes: Changes of the rules' runs after the window and the fit, per kind.
        drop_params: Request parameters the rules removed on the trimmed transcript
            (thinking, for a tool loop in progress whose turn lost its thinking).
    """

    messages: list[Any]
    removed: int = 0
    tokens: int | None = None
    context_window: int | None = None
    thinking_dropped: int = 0
    changes: dict[str, int] = field(default_factory=dict)
    drop_params: tuple[str, ...] = ()

    def as_report(self) -> dict[str, int]:
        """The counts for the call report and headers (no content)."""
        report = {"removed": self.removed, "thinking_dropped": self.thinking_dropped}
        if self.tokens is not None:
            report["tokens"] = self.tokens
        if self.context_window is not None:
            report["context_window"] = self.context_window
        return report


def _window(options: HygieneOptions) -> SlidingWindow | None:
    if options.window_max_messages is None and options.window_max_user_turns is None:
        return None
    return SlidingWindow(
        options.window_max_messages,
        max_user_turns=options.window_max_user_turns,
        preserve_system_messages=options.window_preserve_system_messages,
    )


def trim_request(
    messages: Sequence[Any],
    params: Mapping[str, Any],
    kwargs: Mapping[str, Any],
    options: HygieneOptions,
    ctx: RuleContext,
    wire: Wire = OPENAI,
) -> TrimOutcome | None:
    """Apply the configured window and fit to a sanitized request.

    ``messages`` and ``params``: the request as the rules left it, for the target and
    policy of ``ctx``. Returns ``None`` when nothing was left out. ``wire``: the shape
    the messages were read in (the rules run again on what is kept, with the same wire
    facts).

    Raises:
        litellm.ContextWindowExceededError: ``fit_to_context`` is on and even the
            minimal transcript does not fit the deployment's window.
    """
    window = _window(options)
    if window is None and not options.fit_to_context:
        return None
    target = ctx.target
    policy = ctx.policy
    outcome = TrimOutcome(messages=list(messages))
    if window is not None:
        _apply_window(outcome, window, target, policy, wire)
    if options.fit_to_context:
        _apply_fit(outcome, kwargs, target, options)
    if not outcome.removed:
        return None
    _settle(outcome, target, policy, params, wire)
    return outcome


_PARAMETER_RULES: Final = tuple(rule for rule in RULES if rule.params)
"""The rules that decide request parameters (they change no message)."""


def _settle(
    outcome: TrimOutcome,
    target: TargetModel,
    policy: Policy,
    params: Mapping[str, Any],
    wire: Wire,
) -> None:
    """The parameter rules, once more, on what is sent: the parameters are decided on it.

    Only those: the messages were made valid before trimming, with the provenance the
    request had (stamps restored from the store ride on its slots, not on what is
    sent), and the window and the fit keep them valid.
    """
    conv = read_conversation(outcome.messages, context_for(target, policy), wire, params)
    settled, changes = run_rules(conv, _PARAMETER_RULES)
    outcome.drop_params = settled.dropped_params(params)
    _add_changes(outcome, changes)


def _add_changes(outcome: TrimOutcome, changes: Sequence[Change]) -> None:
    """Count ``changes`` per kind, leaving out the stamp's removal (bookkeeping)."""
    for kind, number in counted(changes, BOOKKEEPING).items():
        outcome.changes[kind] = outcome.changes.get(kind, 0) + number


def _apply_window(
    outcome: TrimOutcome,
    window: SlidingWindow,
    target: TargetModel,
    policy: Policy,
    wire: Wire,
) -> None:
    current = outcome.messages
    kept = window.select(current)
    if len(kept) == len(current):
        return
    first_cut = next(i for i, k in enumerate([*kept, len(current)]) if i != k)
    dropped = drop_thinking_after(current, kept, first_cut)
    again, changes = run_rules(
        read_conversation(dropped.messages, context_for(target, policy), wire)
    )
    outcome.messages = [slot.raw for slot in again.slots]
    outcome.removed += len(current) - len(kept)
    outcome.thinking_dropped += dropped.dropped
    _add_changes(outcome, changes)


def _apply_fit(
    outcome: TrimOutcome, kwargs: Mapping[str, Any], target: TargetModel, options: HygieneOptions
) -> None:
    model_info = kwargs.get("model_info")
    tools = kwargs.get("tools")
    max_tokens = kwargs.get("max_tokens") or kwargs.get("max_completion_tokens")
    window = target.capabilities.context_window
    if window is not None and options.overflow_margin:
        window = max(1, int(window * (1.0 - options.overflow_margin)))
    try:
        fitted = fit_to_context(
            outcome.messages,
            str(kwargs.get("model") or ""),
            max_tokens=max_tokens if isinstance(max_tokens, int) and max_tokens > 0 else None,
            context_window=window,
            tools=tools if isinstance(tools, list) else None,
            model_info=model_info if isinstance(model_info, Mapping) else None,
            marker=options.fit_marker,
        )
    except ConfigurationError:
        logger.info("litellm_hygiene: window of %s unknown; request not fitted", target)
        return
    outcome.messages = fitted.messages
    outcome.removed += len(fitted.removed)
    outcome.tokens = fitted.tokens
    outcome.context_window = fitted.context_window
    outcome.thinking_dropped += fitted.thinking_dropped
