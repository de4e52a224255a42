"""The OpenAI-shaped wire format (as LiteLLM accepts and returns it) and the neutral model.

This subpackage is the one boundary between OpenAI-shaped dicts and the neutral model;
nothing else in litellm_hygiene reads or writes wire messages.
"""

from .._wire._keys import STAMP_KEY
from ._decode import decode_message, from_openai
from ._encode import encode_message, to_openai, tools_to_openai

__all__ = [
    "STAMP_KEY",
    "decode_message",
    "encode_message",
    "from_openai",
    "to_openai",
    "tools_to_openai",
]
