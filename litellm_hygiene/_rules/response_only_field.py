"""LiteLLM's response-only fields are removed where the target rejects or misreads them.

LiteLLM returns ``thinking_blocks``, ``reasoning_content``, ``provider_specific_fields``
and ``reasoning_items`` on assistant messages, and forwards them verbatim to
OpenAI-shaped providers: OpenAI and strict compatibles reject them (Fireworks:
``Extra inputs are not permitted, field: 'messages[2].thinking_blocks'``). Which fields
go is policy (``Policy.strip_fields`` on every turn, ``Policy.strip_foreign_fields`` on
turns that are not replayable). Thinking that travelled in a stripped field goes with
it, also from the same model: the target cannot take it back.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar, Final

from .._build import copy_unchecked
from .._content import TextContent, ThinkingContent, ToolCall
from .._messages import AssistantMessage, Message
from .._view import OPAQUE, PROVIDER_FIELDS, Wire
from ._codes import Code
from ._conversation import Conversation, RuleContext, Slot
from ._findings import Problem
from ._rule import MessageRule, Repair, WireRepair

__all__ = ["ResponseOnlyField"]

_PSF: Final = PROVIDER_FIELDS


@functools.lru_cache(maxsize=64)
def _fields(always: frozenset[str], foreign: frozenset[str] | None) -> frozenset[str]:
    return always | foreign if foreign is not None else always


def fields_for(ctx: RuleContext, replayable: bool) -> frozenset[str]:
    """The response-only fields a turn loses on the way to ``ctx``'s target."""
    policy = ctx.policy
    return _fields(policy.strip_fields, None if replayable else policy.strip_foreign_fields)


def _field_problem(key: str, reason: str) -> Problem:
    return Problem(key, reason, "extra_field", values={"key": key})


def _call(call: ToolCall, position: int, wire: Wire) -> tuple[ToolCall, Problem | None]:
    sites = tuple(site for site in call.signature_sites if site == "id")
    signature = call.thought_signature
    listed = call.signature_sites
    if not wire.writes_fields(call.extra, signature, _PSF in listed) and not wire.writes_fields(
        call.function_extra, signature, f"function.{_PSF}" in listed
    ):
        return call, None
    update: dict[str, Any] = {
        "extra": {k: v for k, v in call.extra.items() if k != _PSF},
        "function_extra": {k: v for k, v in call.function_extra.items() if k != _PSF},
        "signature_sites": sites,
    }
    if not sites:
        update.update(thought_signature=None)
    problem = Problem(f"tool_calls[{position}].{_PSF}", "tool call provider fields removed")
    return copy_unchecked(call, **update), problem


def _blocks(
    message: AssistantMessage, fields: frozenset[str], wire: Wire
) -> tuple[list[Any], list[Problem]]:
    out: list[Any] = []
    problems: list[Problem] = []
    strip_psf = _PSF in fields
    calls = 0
    for position, block in enumerate(message.content):
        if isinstance(block, ThinkingContent) and block.origin in fields:
            reason = f"same-model thinking dropped: the target rejects {block.origin}"
            problems.append(_field_problem(block.origin, reason))
            continue
        if isinstance(block, ToolCall):
            if strip_psf:
                block, problem = _call(block, calls, wire)
                if problem is not None:
                    problems.append(problem)
            calls += 1
        elif isinstance(block, TextContent) and strip_psf and block.text_signature is not None:
            problems.append(Problem(f"content[{position}]", "text signature removed"))
            block = copy_unchecked(block, text_signature=None)
        out.append(block)
    return out, problems


def strip_fields(
    message: AssistantMessage, conv: Conversation, *, replayable: bool
) -> tuple[AssistantMessage, list[Problem]]:
    """The turn without the response-only fields ``conv``'s target must not get."""
    fields = fields_for(conv.ctx, replayable)
    if not fields:
        return message, []
    blocks, problems = _blocks(message, fields, conv.wire)
    update: dict[str, Any] = {}
    if problems:
        update["content"] = tuple(blocks)
    if "reasoning_content" in fields and message.reasoning_content is not None:
        update["reasoning_content"] = None
        problems.append(_field_problem("reasoning_content", "response-only field removed"))
    if _PSF in fields and message.provider_specific_fields is not None:
        update[_PSF] = None
        problems.append(_field_problem(_PSF, "response-only field removed"))
    dropped = [k for k in message.extra if k in fields]
    if dropped:
        update["extra"] = {k: v for k, v in message.extra.items() if k not in fields}
        problems += [_field_problem(k, "response-only field removed") for k in sorted(dropped)]
    if not update:
        return message, []
    return copy_unchecked(message, **update), problems


class ResponseOnlyField(MessageRule):
    """Remove the response-only fields the target rejects, per policy."""

    code: ClassVar[Code] = "response_only_field"
    flags: ClassVar[int] = OPAQUE

    def candidate(self, conv: Conversation, slot: Slot) -> bool:
        """Assistant turns with opaque data whose target strips some of it."""
        facts = slot.facts
        if not facts.flags & OPAQUE or facts.role != "assistant":
            return False
        return bool(fields_for(conv.ctx, conv.judged(slot)))

    def repair(self, conv: Conversation, index: int, message: Message) -> Repair:
        """The turn without the fields its target must not get."""
        if not isinstance(message, AssistantMessage):
            return message, []
        return strip_fields(message, conv, replayable=conv.replayable(index))

    def edit(self, conv: Conversation, index: int, slot: Slot) -> WireRepair | None:
        """:meth:`repair` made on the wire, where each field is only a key to remove."""
        present = conv.wire.plain_fields(slot.raw)
        if present is None:
            return None
        drop = present & fields_for(conv.ctx, conv.judged(slot))
        if not drop:
            return slot.raw, [], slot.facts
        problems = [_field_problem(key, "response-only field removed") for key in sorted(drop)]
        return conv.wire.with_keys_removed(slot.raw, drop), problems, None
