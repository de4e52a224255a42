"""Two turns of one role in a row are merged where the target requires alternation.

Anthropic: ``roles must alternate between "user" and "assistant"``; Anthropic-compatible
endpoints ``400 Incorrect role information``; Gemini ``Please ensure that multiturn
requests alternate between user and model``; Mistral templates on vLLM ``Conversation
roles must alternate``. System and developer messages are not turns: they neither
separate nor start turns, and one between two merged turns moves before the merged turn,
which takes the later turn's place so that turn's tool results stay right after it.
Where the request's shape sends a system message after the first turn at its place
(``Wire.system_in_place``: a Claude mid-conversation system message, which
``system_placement`` has put where the target takes it), it stays there, and the turns
on either side of it are not merged.
String content stays string content (a known upstream merge dropped it). A same-model
turn merged with a foreign one is foreign: its signatures cannot be vouched for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Final

from .._build import construct_unchecked, copy_unchecked
from .._content import OpaqueContent, TextContent
from .._messages import AssistantMessage, Message, OpaqueMessage, UserMessage
from .._view import BLANK, Wire
from ._codes import Code
from ._conversation import Conversation, RuleContext, Slot
from ._findings import Finding, Problem
from ._rule import Rule, as_foreign, settled
from ._wording import ErrorKind

__all__ = ["ConsecutiveTurns"]

_CODE: Final[Code] = "consecutive_turns"


def _plain_string(message: UserMessage | AssistantMessage, wire: Wire) -> bool:
    """Content that travelled as a bare string and still is one plain text."""
    return (
        message.content_form == "string"
        and len(message.content) == 1
        and wire.is_plain_text(message.content[0])
    )


def _blank_text(block: object, wire: Wire) -> bool:
    """A whitespace-only text part that carries nothing else (no signature, no marks).

    A merge leaves these out: joined into the merged turn they only pad its text.
    """
    return (
        isinstance(block, TextContent)
        and not block.text.strip()
        and block.text_signature is None
        and wire.is_plain_text(block)
    )


def _kept(blocks: tuple[Any, ...], wire: Wire) -> tuple[Any, ...]:
    """``blocks`` without whitespace-only text parts (all of them if nothing else is left)."""
    kept = tuple(b for b in blocks if not _blank_text(b, wire))
    return kept or blocks


def _joined_text(texts: list[str]) -> str:
    """Texts a blank line apart, whitespace-only ones left out (the first if all are)."""
    return "\n\n".join(t for t in texts if t.strip()) or (texts[0] if texts else "")


def _merge_users(first: UserMessage, second: UserMessage, wire: Wire) -> UserMessage:
    if _plain_string(first, wire) and _plain_string(second, wire):
        text = _joined_text([first.content[0].text, second.content[0].text])  # type: ignore[union-attr]
        return copy_unchecked(first, content=(construct_unchecked(TextContent, text=text),))
    head_blocks, tail_blocks = _kept(first.content, wire), _kept(second.content, wire)
    update: dict[str, Any] = {"content": head_blocks + tail_blocks, "content_form": "list"}
    if first.cache_control is not None and head_blocks:
        *head, last = head_blocks
        marked = copy_unchecked(last, cache_control=first.cache_control)
        update["content"] = (*head, marked, *tail_blocks)
    update["cache_control"] = second.cache_control
    update["extra"] = {**second.extra, **first.extra}
    return copy_unchecked(first, **update)


def _merge_assistants(
    conv: Conversation, first: AssistantMessage, second: AssistantMessage, replayable: bool
) -> AssistantMessage:
    wire = conv.wire
    content = first.content + second.content
    psf = first.provider_specific_fields
    # A signed turn merged with an unsigned one: its signatures no longer line up with
    # the texts on the wire, and no text is read back as signed (nor kept as one).
    read_back = wire.text_signatures_read_back(content, psf)
    if read_back is not None:
        content, psf = read_back
    # A blank text kept only while signed may have lost its signature here (or to
    # as_foreign): the turn so far, with both turns' keys, goes through the message
    # rules ahead, which drop it as they would have (marker and all), and whatever else
    # of it they would (a response-only key of a turn as_foreign kept as it was): the
    # merged turn is what they leave, or the next run would find it.
    extra = {**second.extra, **first.extra}
    so_far = copy_unchecked(
        first, content=content, content_form="list", extra=extra, provider_specific_fields=psf
    )
    ahead = settled(conv, so_far, _CODE, replayable=replayable)
    assert ahead is None or isinstance(ahead, AssistantMessage)
    kept = so_far if ahead is None else ahead
    content = () if ahead is None else ahead.content
    content = _kept(content, wire)
    # Texts become one string only when no signature rides on either: a Gemini text
    # signature belongs to its own text, so signed texts stay separate parts.
    signed = any(isinstance(b, TextContent) and b.text_signature for b in content)
    if _plain_string(first, wire) and _plain_string(second, wire) and not signed:
        form = "string"
    elif any(isinstance(b, TextContent) or isinstance(b, OpaqueContent) for b in content):
        form = "list"
    else:
        form = "null"
    if form == "string":
        text = _joined_text([b.text for b in content if isinstance(b, TextContent)])
        content = (construct_unchecked(TextContent, text=text),)
    return copy_unchecked(kept, content=content, content_form=form, stamped=False)


def _merges(ctx: RuleContext, previous: str | None, role: str) -> bool:
    if role != previous:
        return False
    if role == "user":
        return ctx.policy.merge_user_turns
    return role == "assistant" and ctx.policy.merge_assistant_turns


class ConsecutiveTurns(Rule):
    """Merge consecutive same-role turns, per policy."""

    code: ClassVar[Code] = _CODE

    def applies(self, ctx: RuleContext) -> bool:
        """Only targets that require alternation."""
        return ctx.policy.merge_user_turns or ctx.policy.merge_assistant_turns

    def find(self, conv: Conversation) -> list[Finding]:
        """Each turn that follows a turn of its own role (system messages aside)."""
        found: list[Finding] = []
        previous: str | None = None
        last = 0
        for index, slot in enumerate(conv.slots):
            role = slot.facts.role
            if role == "system":
                if previous is not None and conv.wire.system_in_place:
                    previous = "system"  # sent at its place: the turns around it stay apart
                continue
            if _merges(conv.ctx, previous, role):
                kind: ErrorKind = (
                    "user_after_user" if role == "user" else "assistant_after_assistant"
                )
                reason = f"a {role} turn follows a {role} turn"
                if _pads(conv, last) or _pads(conv, index):
                    reason += "; whitespace-only text parts left out of the merge"
                problem = Problem("role", reason, kind, values={"role": role})
                found.append(Finding(index, (problem,)))
            previous, last = role, index
        return found

    def fix(self, conv: Conversation, found: Sequence[Finding]) -> Conversation:
        """Merge each found turn into the turn before it.

        A merge that makes a same-model turn foreign drops its calls' signatures, and
        with them the ``__thought__`` part of their ids where LiteLLM pairs by the whole
        id (Gemini): the results right after the merged turn follow the new ids, or
        LiteLLM's converter finds no call for them.
        """
        merged = {finding.index for finding in found}
        out: list[Slot] = []
        last_turn: int | None = None
        renamed: dict[str, str] = {}
        for index, slot in enumerate(conv.slots):
            role = slot.facts.role
            if role == "tool" and slot.facts.result_raw in renamed:
                new_id = renamed[slot.facts.result_raw]
                slot = conv.with_ids(slot, {}, new_id)
            elif role != "tool":
                renamed = {}
            if role == "system":
                out.append(slot)
                continue
            if index in merged and last_turn is not None:
                previous = out.pop(last_turn)
                slot = _merged(conv, previous, slot, index)
                renamed = _renamed_calls(previous, conv.slots[index], slot)
            out.append(slot)
            last_turn = len(out) - 1
        return conv.with_slots(out)


def _pads(conv: Conversation, index: int) -> bool:
    """Turn ``index`` has whitespace-only text parts a merge leaves out."""
    if not conv.facts(index).flags & BLANK:
        return False
    message = conv.message(index)
    if isinstance(message, OpaqueMessage):
        return False
    return any(_blank_text(block, conv.wire) for block in message.content)


def _merged(conv: Conversation, first_slot: Slot, second_slot: Slot, index: int) -> Slot:
    probe = conv.with_slots((first_slot, second_slot))
    first, second = probe.message(0), probe.message(1)
    if isinstance(first, UserMessage) and isinstance(second, UserMessage):
        return conv.slot_for(_merge_users(first, second, conv.wire), like=first_slot)
    assert isinstance(first, AssistantMessage) and isinstance(second, AssistantMessage)
    same = probe.replayable(0), probe.replayable(1)
    if same[0] != same[1]:
        # Both go as another model's turns (a merged turn has one provenance).
        head, tail = as_foreign(conv, first, _CODE), as_foreign(conv, second, _CODE)
        assert isinstance(head, AssistantMessage) and isinstance(tail, AssistantMessage)
        first, second = head, tail
    both = same[0] and same[1]
    message: Message = _merge_assistants(conv, first, second, both)
    return conv.slot_for(message, verdict=both, like=first_slot)


def _renamed_calls(first: Slot, second: Slot, merged: Slot) -> dict[str, str]:
    """Call ids (as given) the merge changed, old to new, by the calls' order."""
    before = first.facts.calls + second.facts.calls
    after = merged.facts.calls
    if len(before) != len(after):
        return {}
    return {old[2]: new[2] for old, new in zip(before, after, strict=True) if old[2] != new[2]}
