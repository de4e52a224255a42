"""The chat form of an Anthropic Messages request, with the facts of its native route.

The integration hands the rules a ``/v1/messages`` call's messages in their chat form
(see ``_integration._shapes``), read and written like any chat message. What a turn
starts with, and what an unsigned thinking block is evidence of, differ there: see
:mod:`._native`.
"""

from __future__ import annotations

from typing import Final

from .._openai._wire import OpenAIWire
from ._native import native_evidence, native_leading_block

__all__ = ["ANTHROPIC_NATIVE", "AnthropicNativeWire"]


class AnthropicNativeWire(OpenAIWire):
    """Chat messages of a ``/v1/messages`` call LiteLLM sends as it is (see the module)."""

    system_in_place = True
    evidence = staticmethod(native_evidence)
    leading_block = staticmethod(native_leading_block)


ANTHROPIC_NATIVE: Final = AnthropicNativeWire()
"""The wire of a ``/v1/messages`` call sent natively."""
