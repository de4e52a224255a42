"""Pass 5: rewrite prior assistant turns for the target model.

A signature or redacted payload is valid only for the model that produced it.

- Same model: signed and redacted thinking are kept byte-for-byte and in place
  (Anthropic requires the latest tool-loop turn to start with its own unmodified
  thinking block).
- Other model: readable thinking becomes plain text, without tags (models mimic
  ``<thinking>`` tags); empty thinking and redacted thinking are dropped; text and
  tool-call signatures are dropped.
- Google and OpenRouter-Gemini targets: thought signatures that are not canonical
  base64 are removed even on same-model turns (``Base64 decoding failed``).
- LiteLLM's response-only fields are removed where the target rejects or misuses them
  (policy ``strip_fields``, and ``strip_foreign_fields`` for foreign turns).
"""

from __future__ import annotations

import functools
from typing import Any

from .._build import rebuilt, trusted
from .._content import OpaqueContent, TextContent, ThinkingContent, ToolCall
from .._messages import AssistantContent, AssistantMessage, Message
from .._policy import ResponseField
from .._provenance import is_canonical_base64
from ._base import Change, Messages, PassContext, PassResult, change

__all__ = ["reconcile_assistant_history", "reconcile_turn"]

STEP = "reconcile_assistant_history"

_THINKING_FIELD: dict[str, ResponseField] = {
    "thinking_blocks": "thinking_blocks",
    "reasoning_content": "reasoning_content",
    "reasoning_items": "reasoning_items",
}


class _Rewrite:
    """Collects the new blocks of one turn and the changes made to them."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.blocks: list[AssistantContent] = []
        self.changes: list[Change] = []

    def note(self, kind: str, detail: str = "") -> None:
        self.changes.append(change(step=STEP, kind=kind, index=self.index, detail=detail))


def _same_model_signature(
    block: ThinkingContent, ctx: PassContext, out: _Rewrite
) -> ThinkingContent:
    """Drop a same-model thinking signature the target cannot decode (Google: base64)."""
    if block.signature is None or _signature_ok(block.signature, False, ctx):
        return block
    out.note("thinking_signature_dropped", "not canonical base64")
    return rebuilt(block, signature=None)


def _thinking(
    block: ThinkingContent, foreign: bool, stripped: bool, ctx: PassContext, out: _Rewrite
) -> None:
    if not (foreign or stripped):
        block = _same_model_signature(block, ctx, out)
    if block.redacted:
        if foreign or stripped or block.signature is None:
            out.note("redacted_thinking_dropped")
        else:
            out.blocks.append(block)
    elif not block.thinking.strip():
        # Unsigned empty thinking carries nothing; where empty content is rejected it
        # would leave an empty turn, so it goes whoever produced it.
        unsigned = block.signature is None and ctx.policy.reject_empty_text
        if foreign or stripped or unsigned:
            out.note("empty_thinking_dropped")
        else:
            out.blocks.append(block)
    elif foreign:
        out.blocks.append(trusted(TextContent, text=block.thinking))
        out.note("thinking_to_text")
    elif stripped:
        out.note("same_model_thinking_dropped", f"target rejects {block.origin}")
    else:
        out.blocks.append(block)


def _signature_ok(signature: str | None, foreign: bool, ctx: PassContext) -> bool:
    if signature is None:
        return True
    if foreign:
        return False
    return not ctx.policy.require_base64_thought_signatures or is_canonical_base64(signature)


def _tool_call(
    call: ToolCall, foreign: bool, strip_psf: bool, ctx: PassContext, out: _Rewrite
) -> None:
    update: dict[str, Any] = {}
    if not _signature_ok(call.thought_signature, foreign, ctx):
        update["thought_signature"] = None
        out.note("tool_call_signature_dropped")
    psf = "provider_specific_fields"
    sites = tuple(site for site in call.signature_sites if site == "id")
    if strip_psf and (
        psf in call.extra or psf in call.function_extra or sites != call.signature_sites
    ):
        update["extra"] = {k: v for k, v in call.extra.items() if k != psf}
        update["function_extra"] = {k: v for k, v in call.function_extra.items() if k != psf}
        update["signature_sites"] = sites
        out.note("response_field_removed", "tool call provider_specific_fields")
    elif ctx.policy.require_base64_thought_signatures:
        for key in ("extra", "function_extra"):
            cleaned = _without_bad_signature(getattr(call, key))
            if cleaned is not None:
                update[key] = cleaned
                out.note("tool_call_signature_dropped", "not canonical base64")
    out.blocks.append(rebuilt(call, **update) if update else call)


def _without_bad_signature(fields: dict[str, Any]) -> dict[str, Any] | None:
    """``fields`` without a non-base64 signature left in its provider fields.

    Such a signature was not lifted (it disagreed with another site), so the checks on
    ``ToolCall.thought_signature`` never saw it. ``None`` when there is none.
    """
    psf = fields.get("provider_specific_fields")
    signature = psf.get("thought_signature") if isinstance(psf, dict) else None
    if not isinstance(psf, dict) or not isinstance(signature, str):
        return None
    if is_canonical_base64(signature):
        return None
    rest = {k: v for k, v in psf.items() if k != "thought_signature"}
    return {**fields, "provider_specific_fields": rest}


def _text(
    block: TextContent, foreign: bool, strip_psf: bool, ctx: PassContext, out: _Rewrite
) -> None:
    if block.text_signature is not None and (
        strip_psf or not _signature_ok(block.text_signature, foreign, ctx)
    ):
        out.blocks.append(rebuilt(block, text_signature=None))
        out.note("text_signature_dropped")
    else:
        out.blocks.append(block)


@functools.lru_cache(maxsize=64)
def _fields(always: frozenset[str], foreign: frozenset[str] | None) -> frozenset[str]:
    return always | foreign if foreign is not None else always


def _strip_set(message: AssistantMessage, ctx: PassContext) -> tuple[bool, frozenset[str]]:
    foreign = not ctx.replayable(message)
    policy = ctx.policy
    return foreign, _fields(policy.strip_fields, policy.strip_foreign_fields if foreign else None)


def _rewrite_blocks(
    message: AssistantMessage, index: int, ctx: PassContext
) -> tuple[_Rewrite, frozenset[str]]:
    foreign, fields = _strip_set(message, ctx)
    strip_psf = "provider_specific_fields" in fields
    out = _Rewrite(index)
    for block in message.content:
        if isinstance(block, ThinkingContent):
            stripped = _THINKING_FIELD.get(block.origin) in fields
            _thinking(block, foreign, stripped, ctx, out)
        elif isinstance(block, ToolCall):
            _tool_call(block, foreign, strip_psf, ctx, out)
        elif isinstance(block, TextContent):
            _text(block, foreign, strip_psf, ctx, out)
        elif isinstance(block, OpaqueContent):
            out.blocks.append(block)
    return out, fields


def _base64_text_signatures(fields: dict[str, Any] | None) -> dict[str, Any] | None:
    """Provider fields without non-base64 text signatures; ``None`` when none were there.

    These are text signatures the converter could not line up with text blocks.
    """
    signatures = (fields or {}).get("thought_signatures")
    if not isinstance(signatures, list):
        return None
    kept = [s for s in signatures if isinstance(s, str) and is_canonical_base64(s)]
    if len(kept) == len(signatures):
        return None
    rest = {k: v for k, v in (fields or {}).items() if k != "thought_signatures"}
    return {**rest, "thought_signatures": kept} if kept else rest


def _bad_thinking_signature(entry: Any) -> bool:
    if not isinstance(entry, dict) or entry.get("type") != "thinking":
        return False
    signature = entry.get("signature")
    return isinstance(signature, str) and bool(signature) and not is_canonical_base64(signature)


def _base64_verbatim_thinking(extra: dict[str, Any]) -> dict[str, Any] | None:
    """``extra`` without non-base64 signatures in a ``thinking_blocks`` kept verbatim.

    The converter keeps a partly unreadable ``thinking_blocks`` list as it came, so the
    block checks above never see its signatures. ``None`` when there is none to drop.
    """
    entries = extra.get("thinking_blocks")
    if not isinstance(entries, list) or not any(_bad_thinking_signature(e) for e in entries):
        return None
    kept = [
        {k: v for k, v in e.items() if k != "signature"} if _bad_thinking_signature(e) else e
        for e in entries
    ]
    return {**extra, "thinking_blocks": kept}


def reconcile_turn(
    message: AssistantMessage, index: int, ctx: PassContext
) -> tuple[AssistantMessage, list[Change]]:
    """Reconcile one assistant turn for the target (see the module docstring)."""
    out, fields = _rewrite_blocks(message, index, ctx)
    update: dict[str, Any] = {}
    if out.changes:
        update["content"] = tuple(out.blocks)
    if "reasoning_content" in fields and message.reasoning_content is not None:
        update["reasoning_content"] = None
        out.note("response_field_removed", "reasoning_content")
    if "provider_specific_fields" in fields and message.provider_specific_fields is not None:
        update["provider_specific_fields"] = None
        out.note("response_field_removed", "provider_specific_fields")
    elif ctx.policy.require_base64_thought_signatures:
        cleaned = _base64_text_signatures(message.provider_specific_fields)
        if cleaned is not None:
            update["provider_specific_fields"] = cleaned
            out.note("text_signature_dropped", "not canonical base64")
    extra = message.extra
    if ctx.policy.require_base64_thought_signatures and "thinking_blocks" not in fields:
        cleaned = _base64_verbatim_thinking(extra)
        if cleaned is not None:
            extra = update["extra"] = cleaned
            out.note("thinking_signature_dropped", "not canonical base64")
    dropped = [k for k in extra if k in fields]
    if dropped:
        update["extra"] = {k: v for k, v in extra.items() if k not in fields}
        out.note("response_field_removed", ", ".join(sorted(dropped)))
    if not update:
        return message, []
    return rebuilt(message, **update), out.changes


def reconcile_assistant_history(messages: Messages, ctx: PassContext) -> PassResult:
    """Make every assistant turn replayable to the target (see the module docstring)."""
    out: list[Message] = []
    changes: list[Change] = []
    for index, message in enumerate(messages):
        if isinstance(message, AssistantMessage):
            message, made = reconcile_turn(message, index, ctx)
            changes.extend(made)
        out.append(message)
    return (tuple(out) if changes else messages), changes
