"""The chat form of an Anthropic Messages request, with the facts of its native route.

The integration hands the rules a ``/v1/messages`` call's messages in their chat form
(see ``_integration._shapes``), read and written like any chat message. Two facts differ,
because LiteLLM sends these messages as they are instead of converting them:

- **What a turn starts with.** A turn goes out block for block: redacted thinking and
  thinking in any place are sent (the chat converters leave some out, see
  ``_openai._leading``), and consecutive assistant messages are one turn to Anthropic.
- **Unsigned thinking.** Claude signs every thinking block it writes; a thinking block
  without a signature (or with an empty one, as LiteLLM's bridge gives Gemini 3's
  thinking back) is never Claude's own, and Anthropic rejects it (``Invalid `signature`
  in `thinking` block``). In chat, LiteLLM's converter leaves such a block out; here it
  is sent, so it is evidence that the turn came from another protocol.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from .._messages import Api
from .._openai._decode import as_message_dict
from .._openai._evidence import evidence
from .._openai._leading import LeadingBlock
from .._openai._wire import OpenAIWire

__all__ = ["ANTHROPIC_NATIVE", "AnthropicNativeWire"]

_SIGNING: Final[frozenset[Api]] = frozenset({"anthropic-messages", "bedrock-converse"})
_NOT_SIGNING: Final[frozenset[Api]] = frozenset(
    {"gemini", "openai-chat", "openai-responses", "mistral", "openai-compatible", "unknown"}
)
"""The protocols an unsigned thinking block may come from: any that does not sign."""


def _unsigned(block: Any) -> bool:
    if not isinstance(block, Mapping) or block.get("type") != "thinking":
        return False
    signature = block.get("signature")
    return not (isinstance(signature, str) and signature)


def _thinking(msg: Mapping[str, Any]) -> Iterator[Any]:
    blocks = msg.get("thinking_blocks")
    if isinstance(blocks, list):
        yield from blocks
    content = msg.get("content")
    if isinstance(content, list):
        yield from content


def native_evidence(message: Any) -> frozenset[Api]:
    """``evidence``, and an unsigned thinking block's: a protocol that does not sign."""
    found = evidence(message)
    msg = as_message_dict(message, 0)
    if not any(_unsigned(block) for block in _thinking(msg)):
        return found
    if not found:
        return _NOT_SIGNING
    return (found & _NOT_SIGNING) or frozenset({"unknown"})


def _listed(block: Mapping[str, Any], leading: Any) -> bool:
    return isinstance(leading, list) and any(entry is block for entry in leading)


def native_leading_block(raw: Any, api: str) -> LeadingBlock | None:
    """The first block of assistant message ``raw`` as the native route sends it.

    Thinking Claude signed (or redacted) is ``"thinking"``; a call is ``"tool_use"``;
    any other block (unsigned thinking, text, a server tool's) is ``"text"``: not
    thinking. An empty text block counts as none. ``api`` does not matter:
    every target of this route reads Anthropic Messages.
    """
    del api
    msg = as_message_dict(raw, 0)
    leading = msg.get("thinking_blocks")
    for block in _thinking(msg):
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind in ("thinking", "redacted_thinking") and not _listed(block, leading):
            # Read from the turn's content, not its opening: a block came before it on
            # the wire (the reader lists opening thinking as thinking_blocks), a call
            # when the turn has one (chat order writes calls last).
            return "tool_use" if msg.get("tool_calls") else "text"
        if kind == "redacted_thinking":
            return "thinking"
        if kind == "thinking":
            return "text" if _unsigned(block) else "thinking"
        if kind == "text":
            if block.get("text"):
                return "text"
            continue  # an empty text block is no block (hygiene drops it)
        return "text"  # any other block: not thinking
    content = msg.get("content")
    if isinstance(content, str) and content:
        return "text"
    if msg.get("tool_calls"):
        return "tool_use"
    return None


class AnthropicNativeWire(OpenAIWire):
    """Chat messages of a ``/v1/messages`` call LiteLLM sends as it is (see the module)."""

    evidence = staticmethod(native_evidence)
    leading_block = staticmethod(native_leading_block)


ANTHROPIC_NATIVE: Final = AnthropicNativeWire()
"""The wire of a ``/v1/messages`` call sent natively."""
