"""The keys LiteLLM and hygiene add to an OpenAI-shaped assistant message, stated once."""

from __future__ import annotations

from typing import Final

__all__ = [
    "OPAQUE_ROLE",
    "PROVIDER_FIELDS",
    "RESPONSE_FIELDS",
    "STAMP_KEY",
    "THOUGHT_SIGNATURE",
    "THOUGHT_SIGNATURES",
]

PROVIDER_FIELDS: Final = "provider_specific_fields"
"""Where LiteLLM puts what a provider returned beyond OpenAI's shape (on a message, a
tool call or its ``function``): Gemini thought signatures among them."""

THOUGHT_SIGNATURE: Final = "thought_signature"
"""Gemini's signature of a tool call, inside its (or its function's) provider fields."""

THOUGHT_SIGNATURES: Final = "thought_signatures"
"""The list, inside a message's provider fields, of its text blocks' Gemini signatures."""

RESPONSE_FIELDS: Final = frozenset(
    {"thinking_blocks", "reasoning_content", PROVIDER_FIELDS, "reasoning_items"}
)
"""The keys LiteLLM returns on an assistant message that no provider's request defines."""

STAMP_KEY: Final = "litellm_hygiene"
"""The key of litellm_hygiene's provenance stamp on an assistant message.

The integration writes ``{"provider": ..., "api": ..., "model": ...}`` here on every
response it sees, so when the client sends the history back the next request knows
which turns are same-model. The stamp is stripped before anything reaches a provider.
"""

OPAQUE_ROLE: Final = "litellm_hygiene:opaque"
"""The role of the chat form a request shape gives a message it could not read.

The rules read every shape's messages in their chat form; a ``/v1/messages`` message
or a ``/v1/responses`` item no reader could read is handed to them as
``{"role": OPAQUE_ROLE}``, a role no reader knows, so they keep it as it is; its shape's
writer puts the caller's own message back in its place. It never reaches a provider.
"""
