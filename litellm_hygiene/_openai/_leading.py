"""What an assistant message's turn starts with once LiteLLM has converted it for Claude.

Claude, asked to think, checks the first block of the last assistant turn of a tool
loop. That block is not the message's first key: LiteLLM's converters filter and
reorder. For Anthropic's Messages API (``anthropic_messages_pt``) a turn is its
``thinking_blocks`` without the unsigned ones (left out entirely when ``content`` is a
list holding thinking parts), then its content (a list's signed ``thinking`` parts and
non-empty text, in order; redacted thinking inside a list is not sent; a string when
non-empty), then its calls. For Bedrock's Converse API a signed ``thinking`` block
becomes ``reasoningContent``, which is always sorted first; an unsigned one becomes
text, and redacted thinking is not sent. Consecutive assistant messages are sent as one
turn, their blocks in order.

This is LiteLLM 1.106's conversion. 1.109 sends more thinking: redacted thinking (in a
content list, and to Bedrock), and the ``thinking_blocks`` a content list with thinking
parts lacks. Read the 1.106 way, such a turn has no thinking to lead with, and the
request goes without thinking: accepted by every release, if needlessly on 1.109
(``tests/rules/test_thinking_tool_loop*.py`` run on both).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final, Literal

from ._decode import as_message_dict

__all__ = ["LeadingBlock", "leading_block"]

LeadingBlock = Literal["thinking", "text", "tool_use"]
"""The kind of block a turn starts with on the wire, in Anthropic's words."""

_THINKING_PARTS: Final = frozenset({"thinking", "redacted_thinking"})


def leading_block(raw: Any, api: str) -> LeadingBlock | None:
    """The first block LiteLLM sends for assistant message ``raw`` on ``api``.

    ``None`` when the message sends nothing (then LiteLLM leaves it out of the turn),
    or for an API whose converter this does not model.
    """
    msg = as_message_dict(raw, 0)
    if api == "anthropic-messages":
        return next(_anthropic(msg), None)
    if api == "bedrock-converse":
        return _bedrock(msg)
    return None


def _signed(block: Any) -> bool:
    if not isinstance(block, Mapping):
        return False
    if block.get("type") == "redacted_thinking":
        return bool(block.get("data"))
    signature = block.get("signature")
    return block.get("type") == "thinking" and isinstance(signature, str) and bool(signature)


def _blocks(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _anthropic(msg: Mapping[str, Any]) -> Iterator[LeadingBlock]:
    content = msg.get("content")
    parts = _blocks(content)
    in_list = any(isinstance(p, Mapping) and p.get("type") in _THINKING_PARTS for p in parts)
    if not in_list and any(_signed(b) for b in _blocks(msg.get("thinking_blocks"))):
        yield "thinking"
    for part in parts:
        if not isinstance(part, Mapping):
            continue
        kind = part.get("type")
        if kind == "thinking" and _signed(part):
            yield "thinking"
        elif kind == "text" and part.get("text"):
            yield "text"
    if isinstance(content, str) and content:
        yield "text"
    if msg.get("tool_calls") or msg.get("function_call"):
        yield "tool_use"


def _bedrock(msg: Mapping[str, Any]) -> LeadingBlock | None:
    thinking = _blocks(msg.get("thinking_blocks"))
    if any(_signed(b) and b.get("type") == "thinking" for b in thinking):
        return "thinking"
    unsigned = (b.get("thinking") for b in thinking if isinstance(b, Mapping))
    if any(isinstance(t, str) and t.strip() for t in unsigned):
        return "text"
    content = msg.get("content")
    if isinstance(content, str) and content.strip():
        return "text"
    if any(isinstance(p, Mapping) and p.get("text") for p in _blocks(content)):
        return "text"
    if msg.get("tool_calls") or msg.get("function_call"):
        return "tool_use"
    return None
