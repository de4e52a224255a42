"""The facts of a ``/v1/messages`` call's chat messages that its native route changes.

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

from collections.abc import Mapping
from typing import Any, Final

from .._families import UNSIGNED_THINKING_APIS
from .._messages import Api
from .._openai._decode import as_message_dict
from .._openai._evidence import evidence
from .._openai._leading import LeadingBlock

__all__ = ["native_evidence", "native_leading_block"]

_UNKNOWN: Final[frozenset[Api]] = frozenset({"unknown"})
_UNSIGNED: Final = UNSIGNED_THINKING_APIS
"""``_families``' set as this compiled module's own ``Final``: a name imported from a
module that is not compiled is looked up in the module's dict at every read."""


def _unsigned(block: Any) -> bool:
    if not isinstance(block, Mapping) or block.get("type") != "thinking":
        return False
    signature = block.get("signature")
    return not (isinstance(signature, str) and signature)


def _blocks(msg: Mapping[str, Any]) -> list[Any]:
    """The turn's thinking blocks, then its content's blocks, as the wire orders them."""
    blocks = msg.get("thinking_blocks")
    content = msg.get("content")
    listed: list[Any] = blocks if isinstance(blocks, list) else []
    if not isinstance(content, list):
        return listed
    return [*listed, *content] if listed else content


def native_evidence(message: Any) -> frozenset[Api]:
    """``evidence``, and an unsigned thinking block's: a protocol that does not sign."""
    found = evidence(message)
    for block in _blocks(as_message_dict(message, 0)):
        if _unsigned(block):
            if not found:
                return _UNSIGNED
            return (found & _UNSIGNED) or _UNKNOWN
    return found


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
    for block in _blocks(msg):
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
