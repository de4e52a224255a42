"""Thinking and signatures are valid only for the model that produced them.

A signature or redacted payload can be replayed only to the same provider, protocol and
model (Anthropic: ``Invalid `signature` in `thinking` block``; Gemini: ``Corrupted
thought signature.``; OpenAI Responses: ``The encrypted content for item rs_... could
not be verified.``). In a turn that is not replayable to the target:

- readable thinking becomes plain text, without tags (models mimic ``<thinking>``);
  in a turn whose content was a string (or none) it is joined to the turn's text with a
  blank line, so the content stays one string: LiteLLM's request path handles a string
  far faster than a list of parts; in a list it stays its own part, ending with a blank
  line when text follows (LiteLLM joins parts with nothing between for Mistral);
- empty thinking and redacted thinking are dropped (only their model can read them);
- signatures on text and tool calls are dropped.

Which turns are replayable is :meth:`~litellm_hygiene._rules._conversation.Conversation.replayable`.
Same-model turns keep everything byte for byte: Anthropic requires the latest tool-loop
turn to start with its own unmodified thinking block.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, Literal, Protocol

from .._build import construct_unchecked, copy_unchecked
from .._content import TextContent, ThinkingContent, ThinkingOrigin, ToolCall
from .._messages import AssistantMessage, ContentForm, Message
from .._view import OPAQUE
from ._codes import Code
from ._conversation import Conversation, Slot
from ._findings import NO_VALUES, Problem
from ._rule import MessageRule, Repair, WireRepair

__all__ = ["ForeignReasoning"]

_PARAGRAPH: Final = "\n\n"
"""Between thinking made text and the text after it (and texts joined into one)."""


def _blank(text: str) -> bool:
    """Blank text: blank thinking is dropped, and a blank text is never joined to others."""
    return not text or text.isspace()  # not text.strip(), without copying the text


class _Thought(Protocol):
    """What the decision reads of a thinking block: decoded, or read off the wire."""

    @property
    def thinking(self) -> str: ...
    @property
    def signature(self) -> str | None: ...
    @property
    def redacted(self) -> bool: ...
    @property
    def origin(self) -> ThinkingOrigin: ...


Fate = Literal["kept", "dropped", "text", "reasoning"]
"""What becomes of a foreign thinking block: passed back as it is, dropped, made text,
or made ``reasoning_content``."""


def _fate(
    block: _Thought, item: Any, position: int, as_reasoning: bool
) -> tuple[Fate, Problem | None]:
    """What becomes of one thinking block of a foreign turn, and the problem it was.

    ``item`` is the block's ``id`` key (a reasoning item's), named by the wording.
    """
    if block.redacted:
        return "dropped", Problem(
            f"content[{position}]", "redacted thinking dropped", "foreign_redacted"
        )
    if as_reasoning and block.origin == "reasoning_content" and block.signature is None:
        return "kept", None  # readable reasoning, bound to nothing: passed back as it is
    kind = "foreign_reasoning_item" if block.origin == "reasoning_items" else "foreign_thinking"
    signed = kind if block.signature else None
    values = {"item": item} if isinstance(item, str) else NO_VALUES
    where = f"content[{position}]"
    if _blank(block.thinking):
        return "dropped", Problem(where, "empty thinking dropped", signed, values=values)  # type: ignore[arg-type]
    if as_reasoning:
        problem = Problem(where, "thinking became reasoning_content", signed, values=values)  # type: ignore[arg-type]
        return "reasoning", problem
    return "text", Problem(where, "thinking became text", signed, values=values)  # type: ignore[arg-type]


def _thinking(
    block: ThinkingContent, position: int, out: list[Any], as_reasoning: bool
) -> Problem | None:
    """:func:`_fate` of a decoded block, its outcome appended to ``out``."""
    fate, problem = _fate(block, block.extra.get("id"), position, as_reasoning)
    if fate == "kept":
        out.append(block)
    elif fate == "text":
        out.append(construct_unchecked(TextContent, text=block.thinking))
    elif fate == "reasoning":
        reasoning = construct_unchecked(
            ThinkingContent, thinking=block.thinking, origin="reasoning_content"
        )
        out.append(reasoning)
    return problem


def foreign_blocks(message: AssistantMessage, *, as_reasoning: bool = False) -> Repair:
    """The turn with its opaque reasoning data made safe for another model.

    With ``as_reasoning`` (a target in thinking mode), readable thinking is passed back
    as ``reasoning_content`` instead of becoming text.
    """
    out: list[Any] = []
    problems: list[Problem] = []
    calls = 0
    converted: list[int] = []
    for position, block in enumerate(message.content):
        if isinstance(block, ThinkingContent):
            before = len(out)
            problem = _thinking(block, position, out, as_reasoning)
            if problem is None:
                continue
            problems.append(problem)
            if len(out) > before and isinstance(out[before], TextContent):
                converted.append(before)
            continue
        if isinstance(block, ToolCall):
            if block.thought_signature is not None:
                problems.append(_unsigned(calls))
                block = copy_unchecked(block, thought_signature=None)
            calls += 1
        elif isinstance(block, TextContent) and block.text_signature is not None:
            problems.append(
                Problem(
                    f"content[{position}]", "text signature dropped", "foreign_thought_signature"
                )
            )
            block = copy_unchecked(block, text_signature=None)
        out.append(block)
    if not problems:
        return message, []
    form = message.content_form
    if converted and form != "list":
        out = _joined(out)
        form = _form(out, form)
    elif converted:
        out = _separated(out, converted)
    # LiteLLM's reasoning_content beside thinking blocks is a copy of that thinking: it
    # goes with it.
    fixed = copy_unchecked(message, content=tuple(out), content_form=form, reasoning_content=None)
    return fixed, problems


def _unsigned(call: int) -> Problem:
    return Problem(
        f"tool_calls[{call}]", "tool call signature dropped", "foreign_thought_signature"
    )


def _form(blocks: list[Any], form: ContentForm) -> ContentForm:
    """One text (what thinking joined a string, or no content, makes) travels as a string."""
    texts = sum(isinstance(block, TextContent) for block in blocks)
    return "string" if texts == 1 else form


def _separated(blocks: list[Any], converted: list[int]) -> list[Any]:
    """Thinking that became a text part ends with a blank line when text follows it.

    LiteLLM joins text parts with nothing between them for targets that take a string
    (Mistral): without it the thinking would run into the answer (``parallel.Let me``).
    """
    out = list(blocks)
    for position in converted:
        following = out[position + 1] if position + 1 < len(out) else None
        if isinstance(following, TextContent) and following.text.strip():
            text = out[position].text
            out[position] = construct_unchecked(TextContent, text=f"{text}\n\n")
    return out


def _plain(block: Any) -> bool:
    return (
        isinstance(block, TextContent)
        and block.cache_control is None
        and block.text_signature is None
        and not block.extra
        and not _blank(block.text)
    )


def _joined(blocks: list[Any]) -> list[Any]:
    """Adjacent plain, non-blank texts as one text, joined by a blank line."""
    out: list[Any] = []
    for block in blocks:
        if out and _plain(block) and _plain(out[-1]):
            joined = _PARAGRAPH.join((out[-1].text, block.text))
            out[-1] = construct_unchecked(TextContent, text=joined)
        else:
            out.append(block)
    return out


class ForeignReasoning(MessageRule):
    """Turn foreign thinking into text and drop foreign signatures."""

    code: ClassVar[Code] = "foreign_reasoning"
    flags: ClassVar[int] = OPAQUE

    def candidate(self, conv: Conversation, slot: Slot) -> bool:
        """Assistant turns that may carry opaque data and are not replayable."""
        facts = slot.facts
        return bool(facts.flags & OPAQUE) and facts.role == "assistant" and not conv.judged(slot)

    def repair(self, conv: Conversation, index: int, message: Message) -> Repair:
        """The turn without another model's reasoning data."""
        if not isinstance(message, AssistantMessage) or conv.replayable(index):
            return message, []
        return foreign_blocks(message, as_reasoning=conv.ctx.policy.reasoning_on_calls)

    def edit(self, conv: Conversation, index: int, slot: Slot) -> WireRepair | None:
        """:meth:`repair` made on the wire, for a plain turn (see ``Wire.plain_turn``).

        The same decisions, block by block, as :func:`foreign_blocks`: thinking first,
        then the text, then the calls. ``None`` in thinking mode, and where the result
        would be several texts (the neutral model says that better).
        """
        turn = None if conv.ctx.policy.reasoning_on_calls else conv.wire.plain_turn(slot.raw)
        if turn is None:
            return None
        texts: list[str] = []
        problems: list[Problem] = []
        for position, block in enumerate(turn.thinking):  # thinking comes first
            fate, problem = _fate(block, block.item, position, as_reasoning=False)
            if problem is not None:
                problems.append(problem)
            if fate == "text":
                texts.append(block.thinking)
        problems += [_unsigned(number) for number, signed in enumerate(turn.signed) if signed]
        if not problems:
            return slot.raw, [], slot.facts
        plan = conv.ctx.plan
        if not texts:  # only signatures and dropped thinking: the content stays
            raw, facts = conv.wire.with_reasoning(
                slot.raw, slot.facts, plan, turn.text, turn.form, turn.signed
            )
            return raw, problems, facts
        if turn.text is not None:
            if _blank(turn.text):
                return None  # it stays apart from the thinking (see _joined): several texts
            texts.append(turn.text)
        # As _joined joins them: thinking made text is never blank (blank thinking is
        # dropped), and a plain turn's texts carry nothing else, so they make one string.
        text = _PARAGRAPH.join(texts)
        raw, facts = conv.wire.with_reasoning(
            slot.raw, slot.facts, plan, text, "string", turn.signed
        )
        return raw, problems, facts
