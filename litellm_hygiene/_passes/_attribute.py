"""Pass 0: pin down which model produced every assistant turn.

Later passes rewrite the very things provenance evidence is read from (tool-call ids,
signatures, thinking), so the verdict is taken once, here, on the untouched history,
and written into the turn's ``provider``/``api``/``model``:

- stamped turns keep their stamp;
- unstamped turns take the caller's declared source model, when there is one;
- the rest are judged by the policy's ``unknown_provenance``: a turn judged same-model
  is attributed to the target itself, a foreign one to an unknown model.
"""

from __future__ import annotations

from .._build import rebuilt
from .._messages import AssistantMessage, Message
from .._provenance import attribute_source
from .._target import TargetModel
from ._base import Change, Messages, PassContext, PassResult, change

__all__ = ["attribute_provenance"]

STEP = "attribute_provenance"


def _attribute(message: AssistantMessage, ctx: PassContext) -> AssistantMessage:
    if message.api is not None and message.model is not None:
        return message
    target = ctx.target
    if ctx.replayable(message):
        update = {"provider": target.provider, "api": target.api, "model": target.model_id}
    else:
        update = {"provider": None, "api": "unknown", "model": "unknown"}
    return rebuilt(message, **update)


def attribute_provenance(
    messages: Messages, ctx: PassContext, source: TargetModel | None = None
) -> PassResult:
    """Give every assistant turn explicit provenance (see the module docstring)."""
    out: list[Message] = []
    changes: list[Change] = []
    for index, message in enumerate(messages):
        if isinstance(message, AssistantMessage):
            new = _attribute(attribute_source(message, source), ctx)
            if new is not message:
                same = ctx.target.is_same_model(new.provider, new.api, new.model)
                kind = "provenance_same_model" if same else "provenance_foreign"
                changes.append(change(step=STEP, kind=kind, index=index))
            message = new
        out.append(message)
    return (tuple(out) if changes else messages), changes
