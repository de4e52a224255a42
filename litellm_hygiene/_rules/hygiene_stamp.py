"""litellm_hygiene's provenance stamp never reaches a provider.

The stamp exists for the client's round trip only (it tells the next request which
turns are its own); strict providers reject unknown message keys (``Extra inputs are
not permitted``). It is removed wherever LiteLLM could send it on
(:attr:`~litellm_hygiene._openai._facts.WirePlan.sends_message_keys`: OpenAI Chat, its
compatibles, Mistral, and the OpenAI-compatible routes behind Vertex AI and Bedrock).
Where LiteLLM builds each provider message from the keys it knows (Anthropic Messages,
Responses, Gemini models on Google's API, Claude through Bedrock's Converse) the stamp
stays behind, and no stamped turn is copied to remove it. Removing it is bookkeeping,
not a change to the conversation: the integration does not count it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

from .._build import copy_unchecked
from .._messages import AssistantMessage, Message, OpaqueMessage
from .._view import STAMP_KEY, STAMPED, Facts, with_flags
from ._codes import Code
from ._conversation import DECODED_BYTES, Conversation, RuleContext, Slot
from ._findings import Finding, Problem
from ._rule import Rule

__all__ = ["BOOKKEEPING", "HygieneStamp"]

_REASON: Final = "litellm_hygiene's provenance stamp must be removed before sending"


class HygieneStamp(Rule):
    """Remove the stamp key, well-formed or not, from every message."""

    code: ClassVar[Code] = "hygiene_stamp"

    def applies(self, ctx: RuleContext) -> bool:
        """Where LiteLLM would send the stamp on (see the module docstring)."""
        return ctx.plan.sends_message_keys

    def find(self, conv: Conversation) -> list[Finding]:
        """Every message carrying the stamp key."""
        problem = Problem(STAMP_KEY, _REASON, "extra_field", values={"key": STAMP_KEY})
        return [
            Finding(index, (problem,))
            for index, slot in enumerate(conv.slots)
            if slot.facts.flags & STAMPED
        ]

    def fix(self, conv: Conversation, found: Sequence[Finding]) -> Conversation:
        """Shallow copies without the stamp; provenance stays with the slot."""
        slots = list(conv.slots)
        for finding in found:
            assert finding.index is not None
            slots[finding.index] = _unstamped(conv, finding.index)
        return conv.with_slots(slots)


def _unstamped(conv: Conversation, index: int) -> Slot:
    slot = conv.slots[index]
    decoded = slot.message is not None
    facts, message = conv.remembered(
        slot, (_UNSTAMPED, decoded), lambda: _without_stamp(slot), DECODED_BYTES if decoded else 0
    )
    return Slot(
        conv.wire.unstamped(slot.raw),
        facts,
        message,
        verdict=slot.verdict,  # the last rule: nothing asks for provenance after it
        failed=slot.failed,
    )


_UNSTAMPED: Final = "unstamped"

BOOKKEEPING: Final = frozenset({HygieneStamp.code})
"""The codes whose changes are hygiene's own bookkeeping, not changes to the
conversation: a report does not count them (see the module docstring)."""


def _without_stamp(slot: Slot) -> tuple[Facts, Message | None]:
    """The facts and the neutral message of ``slot``'s message without the stamp."""
    message = slot.message
    if message is not None and not isinstance(message, OpaqueMessage):
        extra = {k: v for k, v in message.extra.items() if k != STAMP_KEY}
        if isinstance(message, AssistantMessage) and message.stamped:
            message = copy_unchecked(message, extra=extra, stamped=False)
        else:
            message = copy_unchecked(message, extra=extra)
    facts = slot.facts
    return with_flags(facts, facts.flags & ~STAMPED), message
