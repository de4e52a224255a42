"""Last pass: litellm_hygiene's provenance stamp never reaches a provider.

The stamp exists for the client's round trip only; strict providers reject unknown
message keys (``Extra inputs are not permitted``).
"""

from __future__ import annotations

from .._build import rebuilt
from .._messages import AssistantMessage, Message
from .._openai import STAMP_KEY
from ._base import Change, Messages, PassContext, PassResult, change

__all__ = ["strip_hygiene_stamps"]

STEP = "strip_hygiene_stamps"


def strip_hygiene_stamps(messages: Messages, ctx: PassContext) -> PassResult:
    """Drop the stamp (well-formed or not) from every message."""
    out: list[Message] = []
    changes: list[Change] = []
    for index, message in enumerate(messages):
        stamped = isinstance(message, AssistantMessage) and message.stamped
        if stamped or STAMP_KEY in message.extra:
            update: dict[str, object] = {
                "extra": {k: v for k, v in message.extra.items() if k != STAMP_KEY}
            }
            if stamped:
                update["stamped"] = False
            message = rebuilt(message, **update)
            changes.append(change(step=STEP, kind="stamp_removed", index=index))
        out.append(message)
    return (tuple(out) if changes else messages), changes
