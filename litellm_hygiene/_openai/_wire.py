"""The OpenAI-shaped wire, as the rules read and write it (see ``_view.Wire``)."""

from __future__ import annotations

from typing import Final

from ._decode import decode_message, text_signatures_read_back
from ._edits import (
    plain_fields,
    plain_turn,
    unstamped,
    with_ids,
    with_keys_removed,
    with_reasoning,
)
from ._encode import encode_message
from ._evidence import evidence, signatures
from ._facts import arguments, read_facts, stamp_of
from ._leading import leading_block
from ._parts import is_plain_text
from ._tools import writes_fields

__all__ = ["OPENAI", "OpenAIWire"]


class OpenAIWire:
    """OpenAI-shaped message dicts (and pydantic messages) as LiteLLM accepts them.

    Each method is the wire module's own function (no forwarding frame: the rules call
    some of them once per message on every request); their docstrings say what each
    reads or writes.
    """

    system_in_place = False
    facts = staticmethod(read_facts)
    decode = staticmethod(decode_message)
    encode = staticmethod(encode_message)
    stamp = staticmethod(stamp_of)
    arguments = staticmethod(arguments)
    signatures = staticmethod(signatures)
    evidence = staticmethod(evidence)
    plain_turn = staticmethod(plain_turn)
    with_reasoning = staticmethod(with_reasoning)
    plain_fields = staticmethod(plain_fields)
    leading_block = staticmethod(leading_block)
    with_keys_removed = staticmethod(with_keys_removed)
    text_signatures_read_back = staticmethod(text_signatures_read_back)
    is_plain_text = staticmethod(is_plain_text)
    writes_fields = staticmethod(writes_fields)
    with_ids = staticmethod(with_ids)
    unstamped = staticmethod(unstamped)


OPENAI: Final = OpenAIWire()
"""The OpenAI wire shape."""
