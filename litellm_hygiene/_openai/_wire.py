"""The OpenAI-shaped wire, as the rules read and write it (see ``_view.Wire``)."""

from __future__ import annotations

from typing import Any, Final

from .._wire._keys import STAMP_KEY
from ._decode import as_message_dict, decode_message, text_signatures_read_back
from ._edits import plain_fields, plain_turn, with_ids, with_keys_removed, with_reasoning
from ._encode import encode_message
from ._evidence import evidence, signatures
from ._facts import arguments, read_facts, stamp_of
from ._leading import leading_block
from ._parts import is_plain_text
from ._tools import writes_fields

__all__ = ["OPENAI", "OpenAIWire"]

_STAMP: Final = frozenset({STAMP_KEY})


class OpenAIWire:
    """OpenAI-shaped message dicts (and pydantic messages) as LiteLLM accepts them.

    Each method is the wire module's own function (no forwarding frame: the rules call
    some of them once per message on every request); their docstrings say what each
    reads or writes.
    """

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

    @staticmethod
    def unstamped(raw: Any) -> Any:
        """A shallow copy without the stamp key; its values are the caller's own."""
        return with_keys_removed(as_message_dict(raw, 0), _STAMP)


OPENAI: Final = OpenAIWire()
"""The OpenAI wire shape."""
