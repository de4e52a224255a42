"""What the rules see of a conversation, in any wire shape: the narrow interface.

- :mod:`._facts`: what a rule reads of one message without decoding it;
- :mod:`._plan`: what LiteLLM does with ids and signatures for the target;
- :mod:`._interface`: the interface each shape implements to be read and written.

The rules import this package and the neutral model, never a wire shape
(``tests/rules/test_import_graph.py`` holds that). It also names the wire keys the neutral
model carries among a message's or a call's unknown keys, which the rules must name to
remove them.
"""

from .._wire._keys import PROVIDER_FIELDS, STAMP_KEY, THOUGHT_SIGNATURE, THOUGHT_SIGNATURES
from ._facts import (
    BLANK,
    CALLS,
    IMAGES,
    INLINE_IMAGES,
    NULL_CONTENT,
    OPAQUE,
    SIGNED_ID,
    STAMPED,
    Facts,
    Role,
    plain_facts,
    readdressed_facts,
    renamed_facts,
    with_flags,
)
from ._interface import PlainTurn, Stamp, ThinkingView, Wire
from ._plan import Call, WirePlan, wire_plan

__all__ = [
    "BLANK",
    "CALLS",
    "IMAGES",
    "INLINE_IMAGES",
    "NULL_CONTENT",
    "OPAQUE",
    "PROVIDER_FIELDS",
    "SIGNED_ID",
    "STAMPED",
    "STAMP_KEY",
    "THOUGHT_SIGNATURE",
    "THOUGHT_SIGNATURES",
    "Call",
    "Facts",
    "PlainTurn",
    "Role",
    "Stamp",
    "ThinkingView",
    "Wire",
    "WirePlan",
    "plain_facts",
    "readdressed_facts",
    "renamed_facts",
    "wire_plan",
    "with_flags",
]
