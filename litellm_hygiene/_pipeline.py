"""The transformation pipeline: every rule, found then fixed, in order.

:data:`~litellm_hygiene._rules.RULES` lists the rules in pipeline order; its module
docstring says why the order matters. Each rule is asked what it finds; only a rule that
finds something fixes, and only there. A conversation no rule finds anything in comes
back as the very object it went in as, having been read once and never decoded: that is
the hot path, and it is the same code as the full pipeline.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from ._executor import run_rules
from ._families import policy_for
from ._messages import AssistantMessage, Context, Message
from ._openai._wire import OPENAI
from ._policy import Policy
from ._rules import RULES, Change, Conversation, RuleContext, Slot
from ._target import TargetModel
from ._view import wire_plan

__all__ = ["TransformReport", "TransformResult", "context_for", "run_rules", "transform_messages"]

_FAILED = frozenset({"error", "aborted"})


class TransformReport(BaseModel):
    """What the pipeline changed, without message content.

    Attributes:
        changes: Every change, in the order the rules made them.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    changes: tuple[Change, ...] = ()

    def counts(self) -> dict[str, int]:
        """Number of changes per kind (``tool_call_id``: 3, ...)."""
        return dict(Counter(c.kind for c in self.changes))

    @property
    def changed(self) -> bool:
        """Whether anything changed."""
        return bool(self.changes)


class TransformResult(BaseModel):
    """The transformed context and the report of what changed.

    Attributes:
        context: The context to send (the same object when nothing changed).
        report: What each rule changed.
        params: The request parameters given, as they are to be sent (a rule may remove
            one the messages cannot be sent with).
        dropped_params: The names of the parameters removed.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    context: Context
    report: TransformReport
    params: Mapping[str, Any] = {}
    dropped_params: tuple[str, ...] = ()


def context_for(
    target: TargetModel, policy: Policy | None = None, source: TargetModel | None = None
) -> RuleContext:
    """Everything the rules need to know of where a request goes."""
    return RuleContext(target, policy or policy_for(target), wire_plan(target), source, RULES)


def neutral_slots(messages: Sequence[Message], ctx: RuleContext) -> list[Slot]:
    """Slots for neutral messages (their wire form written once, for the facts)."""
    slots: list[Slot] = []
    for index, message in enumerate(messages):
        raw = OPENAI.encode(message)
        failed = isinstance(message, AssistantMessage) and message.stop_reason in _FAILED
        slot = Slot(raw, OPENAI.facts(raw, index, ctx.plan), message, origin=index, failed=failed)
        slots.append(slot)
    return slots


def transform_messages(
    context: Context,
    target: TargetModel,
    *,
    policy: Policy | None = None,
    source: TargetModel | None = None,
    params: Mapping[str, Any] | None = None,
) -> TransformResult:
    """Transform a neutral context for ``target``.

    Args:
        context: The conversation; never mutated.
        target: The resolved model the request goes to (see ``resolve_target``).
        policy: Override the target family's policy.
        source: The model that produced assistant turns without provenance.
        params: The request's other parameters (``thinking``...), for the rules that
            read them; never mutated.

    Returns:
        The new context (the same object when nothing changed), a report, and the
        parameters to send.
    """
    ctx = context_for(target, policy, source)
    given: Mapping[str, Any] = params if params is not None else {}
    read = Conversation(neutral_slots(context.messages, ctx), ctx, OPENAI, given)
    conv, changes = run_rules(read)
    report = TransformReport(changes=tuple(changes))
    if not changes:
        return TransformResult(context=context, report=report, params=given)
    if conv.slots is read.slots:  # only the parameters changed
        new = context
    else:
        messages = tuple(conv.message(i) for i in range(len(conv)))
        new = context.model_copy(update={"messages": messages})
    return TransformResult(
        context=new,
        report=report,
        params=conv.params,
        dropped_params=conv.dropped_params(given),
    )
