"""Google decodes thought signatures as base64: others are dropped, even same-model ones.

Gemini (and Gemini behind OpenRouter) rejects the whole request: ``Invalid value at
'contents[2].parts[0].thought_signature' (TYPE_BYTES), Base64 decoding failed for
"..."``. Real Gemini signatures always are canonical base64; what is not (an Anthropic
``msg_`` id forwarded by a router, an empty string) cannot be replayed anywhere. Turns
that are not replayable lose their signatures to ``foreign_reasoning``; this rule is
about the ones that stay.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from .._build import copy_unchecked
from .._content import TextContent, ThinkingContent, ToolCall
from .._messages import AssistantMessage, Message
from .._signatures import is_canonical_base64
from .._view import OPAQUE, PROVIDER_FIELDS, THOUGHT_SIGNATURE, THOUGHT_SIGNATURES
from ._codes import Code
from ._conversation import Conversation, RuleContext, Slot
from ._findings import Problem
from ._rule import MessageRule, Repair

__all__ = ["NonBase64Signature", "requires_base64"]

_PSF: Final = PROVIDER_FIELDS


def requires_base64(ctx: RuleContext) -> bool:
    """The target decodes thought signatures as base64 (a Gemini model, or the policy)."""
    return ctx.plan.gemini_model or ctx.policy.require_base64_thought_signatures


def _good(value: Any) -> bool:
    return isinstance(value, str) and is_canonical_base64(value)


def _bad(value: Any) -> bool:
    return isinstance(value, str) and not is_canonical_base64(value)


def _problem(where: str, value: str, call: int | None = None, local: int = 0) -> Problem:
    return Problem(
        where,
        "thought signature is not canonical base64",
        "non_base64_signature",
        local=local,
        call=call,
        values={"sig": value},
    )


def _unlifted(fields: dict[str, Any]) -> dict[str, Any] | None:
    """``fields`` without a bad signature left in its provider fields; ``None``: none."""
    psf = fields.get(_PSF)
    if not isinstance(psf, dict) or not _bad(psf.get(THOUGHT_SIGNATURE)):
        return None
    rest = {k: v for k, v in psf.items() if k != THOUGHT_SIGNATURE}
    return {**fields, _PSF: rest}


def _call(call: ToolCall, position: int, problems: list[Problem]) -> ToolCall:
    update: dict[str, Any] = {}
    if call.thought_signature is not None and _bad(call.thought_signature):
        problems.append(_problem(f"tool_calls[{position}]", call.thought_signature, position))
        update.update(thought_signature=None)
    for key in ("extra", "function_extra"):
        cleaned = _unlifted(getattr(call, key))
        if cleaned is not None:
            problems.append(_problem(f"tool_calls[{position}].{_PSF}", "", position))
            update[key] = cleaned
    return copy_unchecked(call, **update) if update else call


def _blocks(message: AssistantMessage, problems: list[Problem]) -> list[Any]:
    out: list[Any] = []
    calls = 0
    for position, block in enumerate(message.content):
        if isinstance(block, ThinkingContent) and _bad(block.signature):
            problems.append(_problem(f"content[{position}]", block.signature or "", local=position))
            if block.redacted:
                continue
            block = copy_unchecked(block, signature=None)
        elif isinstance(block, TextContent) and _bad(block.text_signature):
            problems.append(_problem(f"content[{position}]", block.text_signature or ""))
            block = copy_unchecked(block, text_signature=None)
        elif isinstance(block, ToolCall):
            block = _call(block, calls, problems)
            calls += 1
        out.append(block)
    return out


def _verbatim(message: AssistantMessage, problems: list[Problem]) -> dict[str, Any]:
    """Bad signatures in message-level places the decoder left as they came.

    Text signatures that did not line up with text blocks, and a partly unreadable
    ``thinking_blocks`` list.
    """
    update: dict[str, Any] = {}
    psf = message.provider_specific_fields or {}
    signatures = psf.get(THOUGHT_SIGNATURES)
    if isinstance(signatures, list) and any(not isinstance(s, str) or _bad(s) for s in signatures):
        kept = [s for s in signatures if isinstance(s, str) and not _bad(s)]
        rest = {k: v for k, v in psf.items() if k != THOUGHT_SIGNATURES}
        update[_PSF] = {**rest, THOUGHT_SIGNATURES: kept} if kept else rest
        problems.append(_problem(f"{_PSF}.thought_signatures", ""))
    entries = message.extra.get("thinking_blocks")
    if isinstance(entries, list) and any(_bad_entry(e) for e in entries):
        kept_entries = [
            {k: v for k, v in e.items() if k != "signature"} if _bad_entry(e) else e
            for e in entries
        ]
        update["extra"] = {**message.extra, "thinking_blocks": kept_entries}
        problems.append(_problem("thinking_blocks", ""))
    return update


def _bad_entry(entry: Any) -> bool:
    return (
        isinstance(entry, dict) and entry.get("type") == "thinking" and _bad(entry.get("signature"))
    )


class NonBase64Signature(MessageRule):
    """Drop thought signatures that are not canonical base64 from replayable turns."""

    code: ClassVar[Code] = "non_base64_signature"
    flags: ClassVar[int] = OPAQUE

    def applies(self, ctx: RuleContext) -> bool:
        """Only targets that decode signatures as base64."""
        return requires_base64(ctx)

    def candidate(self, conv: Conversation, slot: Slot) -> bool:
        """Replayable assistant turns holding a value that is not a good signature."""
        facts = slot.facts
        if not facts.flags & OPAQUE or facts.role != "assistant" or not conv.judged(slot):
            return False
        for value in conv.wire.signatures(slot.raw):
            if not _good(value):
                return True
        return False

    def repair(self, conv: Conversation, index: int, message: Message) -> Repair:
        """The turn without signatures Google cannot decode."""
        if not isinstance(message, AssistantMessage) or not conv.replayable(index):
            return message, []
        problems: list[Problem] = []
        blocks = _blocks(message, problems)
        update = _verbatim(message, problems)
        if not problems:
            return message, []
        content = tuple(blocks)
        # One text's signature dropped beside others kept: they travel as one list, and
        # no longer line up with the texts, so no text is read back as signed.
        psf = update.get(_PSF, message.provider_specific_fields)
        read_back = conv.wire.text_signatures_read_back(content, psf)
        if read_back is not None:
            content, update[_PSF] = read_back
        return copy_unchecked(message, content=content, **update), problems
