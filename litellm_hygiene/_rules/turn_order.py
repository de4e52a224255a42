"""Turns come in the order the target serves: Mistral's, behind every route.

Mistral (and Mistral models behind OpenRouter, Together, vLLM, NIM) rejects three orders
that every other provider takes:

- a user turn right after a tool result (``Unexpected role 'user' after role 'tool'``,
  code 3230): it wants the assistant to speak between the results and the next user
  turn. The fix inserts a short assistant turn there (:data:`BRIDGE_TEXT`; LiteLLM
  drops an empty assistant turn, so it has text);
- a system message once the conversation has started (``Unexpected role 'system' after
  role 'assistant'``). The fix moves it to the system messages at the start, in order:
  an instruction stays an instruction (its text and role are kept), it now applies from
  the start. Turning it into a user turn would have kept its place but made the model
  read an instruction as something the user said;
- a request whose last message is an assistant turn (``Expected last role User or Tool
  (or Assistant with prefix True) for serving but got assistant``). The fix marks that
  turn ``prefix: true``, Mistral's own way to continue an assistant turn: what the
  caller meant by ending on it (a prefill, as Anthropic takes one).

A conversation whose first turn is the assistant's is rejected too; that is
``assistant_first``'s to fix, after this rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

from .._build import construct_unchecked, copy_unchecked
from .._content import TextContent
from .._json import copy_json
from .._messages import AssistantMessage
from ._codes import Code
from ._conversation import Conversation, RuleContext, Slot
from ._findings import Finding, Problem
from ._rule import Rule

__all__ = ["BRIDGE_TEXT", "TurnOrder"]

BRIDGE_TEXT: Final = "(tool results received)"
"""The text of the assistant turn put between tool results and the next user turn."""

_PREFIX: Final = "prefix"


def _order(conv: Conversation) -> tuple[list[int], list[int]]:
    """The positions of the system messages that lead, and of the rest, in order."""
    leading: list[int] = []
    rest: list[int] = []
    for index, slot in enumerate(conv.slots):
        if slot.facts.role == "system" and not rest:
            leading.append(index)
        else:
            rest.append(index)
    return leading, rest


def _prefixed(conv: Conversation, index: int) -> bool:
    message = conv.message(index)
    return isinstance(message, AssistantMessage) and message.extra.get(_PREFIX) is True


def _last_turn(conv: Conversation, turns: list[int]) -> int | None:
    """The last message when it is an assistant turn Mistral will not serve after."""
    if not turns:
        return None
    last = turns[-1]
    facts = conv.slots[last].facts
    if facts.role != "assistant" or facts.calls or _prefixed(conv, last):
        return None
    return last


class TurnOrder(Rule):
    """Put turns in the order Mistral serves: see the module docstring."""

    code: ClassVar[Code] = "turn_order"

    def applies(self, ctx: RuleContext) -> bool:
        """Only targets with Mistral's turn order."""
        return ctx.policy.strict_turn_order

    def find(self, conv: Conversation) -> list[Finding]:
        """Late system messages, user turns right after results, a last assistant turn."""
        found: list[Finding] = []
        previous: str | None = None
        turns: list[int] = []
        for index, slot in enumerate(conv.slots):
            role = slot.facts.role
            if role == "system":
                if previous is not None:
                    reason = "a system message after the conversation started moved to the start"
                    problem = Problem(
                        "role", reason, "system_after_turn", values={"role": previous}
                    )
                    found.append(Finding(index, (problem,)))
                continue
            if role == "user" and previous == "tool":
                reason = "an assistant turn put between tool results and the user turn"
                found.append(Finding(index, (Problem("role", reason, "user_after_tool"),)))
            previous = role
            turns.append(index)
        last = _last_turn(conv, turns)
        if last is not None:
            reason = "the last turn, the assistant's, marked as a prefix to continue"
            found.append(Finding(last, (Problem("prefix", reason, "assistant_last"),)))
        return found

    def fix(self, conv: Conversation, found: Sequence[Finding]) -> Conversation:
        """Systems to the start, a bridge after results, the last assistant a prefix."""
        leading, rest = _order(conv)
        last = _last_turn(conv, [i for i in rest if conv.slots[i].facts.role != "system"])
        systems = [conv.slots[i] for i in leading]
        turns: list[Slot] = []
        previous: str | None = None
        bridge: Slot | None = None  # written once: each other bridge is a copy of it
        for index in rest:
            slot = conv.slots[index]
            role = slot.facts.role
            if role == "system":
                systems.append(slot)
                continue
            if role == "user" and previous == "tool":
                if bridge is None:
                    bridge = conv.slot_for(_bridge())
                    turns.append(bridge)
                else:
                    turns.append(Slot(copy_json(bridge.raw), bridge.facts, bridge.message))
            if index == last:
                message = conv.message(index)
                assert isinstance(message, AssistantMessage)
                prefixed = copy_unchecked(message, extra={**message.extra, _PREFIX: True})
                slot = conv.slot_for(prefixed, like=slot)
            turns.append(slot)
            previous = role
        return conv.with_slots(systems + turns)


def _bridge() -> AssistantMessage:
    return construct_unchecked(
        AssistantMessage, content=(construct_unchecked(TextContent, text=BRIDGE_TEXT),)
    )
