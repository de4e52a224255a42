"""Pass 7: tool-call ids in the shape the target accepts, results renamed alike.

Each protocol accepts its own id shape (Mistral: exactly 9 alphanumerics; Anthropic:
``^[a-zA-Z0-9_-]+$`` up to 64; OpenAI Chat: up to 40). Ids that break the target's rule
are renamed; ids a same-model turn really produced are valid, so they stay untouched;
empty ids get valid ones. Renaming is deterministic (a hash of the id and its
occurrence) and collision-free within the request: ``a|b`` and ``a:b`` never become one
id. New ids carry no provider's prefix, so they are never mistaken for provenance
evidence. The results answering a renamed call are renamed in the same pass: the block
of results right after a turn maps to that turn's calls in order, so a repeated id is
handled per occurrence; any other result takes the mapping of the latest turn that
issued its id.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections import deque
from typing import Any

from .._build import rebuilt
from .._content import ToolCall
from .._messages import AssistantMessage, Message, ToolResultMessage
from .._policy import IdRule
from ._base import Change, Messages, PassContext, PassResult, change

__all__ = ["id_is_valid", "normalize_tool_call_ids"]

STEP = "normalize_tool_call_ids"
_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_RESPONSES_ITEM = re.compile(r"fc[A-Za-z0-9_-]*(?<!_)")
_RESPONSES_CALL_MAX = 64


@functools.lru_cache(maxsize=32)
def _allowed(chars: str) -> re.Pattern[str]:
    return re.compile(f"[{chars}]+")


def _chars_ok(value: str, rule: IdRule) -> bool:
    return rule.allowed is None or _allowed(rule.allowed).fullmatch(value) is not None


def id_is_valid(value: str, rule: IdRule) -> bool:
    """``value`` is an id the target accepts under ``rule``."""
    if not value:
        return False
    if rule.keep_responses_pairs and "|" in value:
        # LiteLLM's Responses bridge sends the whole pair as the call_id.
        call_id, _, item = value.partition("|")
        return (
            bool(call_id)
            and len(value) <= _RESPONSES_CALL_MAX
            and _RESPONSES_ITEM.fullmatch(item) is not None
        )
    if rule.exact_length is not None and len(value) != rule.exact_length:
        return False
    if rule.max_length is not None and len(value) > rule.max_length:
        return False
    return _chars_ok(value, rule)


def _base62(digest: bytes, length: int) -> str:
    number = int.from_bytes(digest, "big")
    chars = []
    for _ in range(length):
        number, rest = divmod(number, 62)
        chars.append(_BASE62[rest])
    return "".join(chars)


class _Namer:
    """Hands out valid, unique ids for one request."""

    def __init__(self, rule: IdRule, reserved: set[str]) -> None:
        self.rule = rule
        self.taken = set(reserved)
        self.occurrences: dict[str, int] = {}

    def _sanitized(self, original: str) -> str:
        rule = self.rule
        if rule.exact_length is not None or rule.allowed is None:
            candidate = original
        else:
            allowed = re.compile(f"[^{rule.allowed}]")
            candidate = allowed.sub("_" if _chars_ok("_", rule) else "", original)
        return candidate[: rule.max_length] if rule.max_length else candidate

    def _hashed(self, original: str, attempt: int) -> str:
        occurrence = self.occurrences[original]
        digest = hashlib.sha256(f"{original}\0{occurrence}\0{attempt}".encode()).digest()
        if self.rule.exact_length is not None:
            return _base62(digest, self.rule.exact_length)
        # A neutral prefix: "call_", "toolu_"... are provenance evidence, and an id
        # hygiene assigns must not make a later run judge the turn differently.
        prefix = "tc_" if _chars_ok("_", self.rule) else "tc"
        body = prefix + _base62(digest, 24)
        return body[: self.rule.max_length] if self.rule.max_length else body

    def fresh(self, original: str) -> str:
        """A new id for ``original``: its sanitized form if free, else a hash."""
        self.occurrences[original] = self.occurrences.get(original, 0) + 1
        candidate = self._sanitized(original)
        attempt = 0
        while candidate in self.taken or not id_is_valid(candidate, self.rule):
            candidate = self._hashed(original, attempt)
            attempt += 1
        self.taken.add(candidate)
        return candidate


def _renamed_call(call: ToolCall, seen: set[str], namer: _Namer) -> str:
    """The call's id, or a new one when the target would reject it.

    A real same-model id is valid by construction and stays untouched; an invalid id in
    a turn judged same-model means the verdict was a guess, and the provider rejects
    the id whatever its origin.
    """
    if call.origin == "function_call" and not call.id:
        return call.id
    if id_is_valid(call.id, namer.rule) and call.id not in seen:
        return call.id
    return namer.fresh(call.id)


def _rename_turn(
    message: AssistantMessage, namer: _Namer
) -> tuple[AssistantMessage, list[tuple[str, ToolCall]]]:
    seen: set[str] = set()
    mapping: list[tuple[str, ToolCall]] = []
    blocks: list[Any] = []
    for block in message.content:
        if isinstance(block, ToolCall):
            new_id = _renamed_call(block, seen, namer)
            seen.add(new_id)
            renamed = block if new_id == block.id else rebuilt(block, id=new_id)
            mapping.append((block.id, renamed))
            block = renamed
        blocks.append(block)
    changed = any(orig != call.id for orig, call in mapping)
    new = rebuilt(message, content=tuple(blocks)) if changed else message
    return new, mapping


def _match_result(result: ToolResultMessage, call: ToolCall | None) -> ToolResultMessage:
    if call is None or (result.tool_call_id == call.id and not result.signature_in_id):
        return result
    in_id = "id" in call.signature_sites and call.thought_signature is not None
    update = {
        "tool_call_id": call.id,
        "signature_in_id": in_id and result.signature_in_id,
        "thought_signature": call.thought_signature if in_id and result.signature_in_id else None,
    }
    if all(getattr(result, k) == v for k, v in update.items()):
        return result
    return rebuilt(result, **update)


def _reserved(messages: Messages, ctx: PassContext) -> set[str]:
    return {
        b.id
        for m in messages
        if isinstance(m, AssistantMessage)
        for b in m.content
        if isinstance(b, ToolCall) and id_is_valid(b.id, ctx.policy.tool_ids)
    }


def _nothing_to_rename(messages: Messages, rule: IdRule) -> bool:
    """Every call id is valid and unique in its turn, and no result id carries a signature.

    Then no call is renamed, so every result already names its call: the pass would
    return its input.
    """
    for message in messages:
        if isinstance(message, AssistantMessage):
            seen: set[str] = set()
            for block in message.content:
                if not isinstance(block, ToolCall) or (
                    block.origin == "function_call" and not block.id
                ):
                    continue
                if block.id in seen or not id_is_valid(block.id, rule):
                    return False
                seen.add(block.id)
        elif isinstance(message, ToolResultMessage) and message.signature_in_id:
            return False
    return True


def normalize_tool_call_ids(messages: Messages, ctx: PassContext) -> PassResult:
    """Rename ids the target would reject, and their results (see the module docstring)."""
    if _nothing_to_rename(messages, ctx.policy.tool_ids):
        return messages, []
    return _rename(messages, ctx)


def _rename(messages: Messages, ctx: PassContext) -> PassResult:
    namer = _Namer(ctx.policy.tool_ids, _reserved(messages, ctx))
    latest: dict[str, ToolCall] = {}
    batch: deque[tuple[str, ToolCall]] = deque()
    out: list[Message] = []
    changes: list[Change] = []
    for index, message in enumerate(messages):
        if isinstance(message, AssistantMessage):
            message, mapping = _rename_turn(message, namer)
            batch = deque(mapping)
            latest.update(mapping)
            changes.extend(
                change(step=STEP, kind="tool_call_id_renamed", index=index)
                for orig, call in mapping
                if orig != call.id
            )
        elif isinstance(message, ToolResultMessage):
            call = _pop(batch, message.tool_call_id) or latest.get(message.tool_call_id)
            new = _match_result(message, call)
            if new is not message:
                changes.append(change(step=STEP, kind="tool_result_id_renamed", index=index))
            message = new
        else:
            batch.clear()
        out.append(message)
    return (tuple(out) if changes else messages), changes


def _pop(batch: deque[tuple[str, ToolCall]], original: str) -> ToolCall | None:
    for position, (orig, call) in enumerate(batch):
        if orig == original:
            del batch[position]
            return call
    return None
