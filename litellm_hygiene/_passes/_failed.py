"""Pass 2: drop assistant turns that ended in ``error`` or ``aborted``, with their results.

Such turns carry partial output and half-streamed tool calls. Replaying them causes
``Item 'rs_...' of type 'reasoning' was provided without its required following item``
(OpenAI Responses) and orphan errors everywhere else. The tool results that answer
their calls must go too: left behind they are results without a call, which every
provider rejects (the seeds' systems drop the turn but keep the results).
"""

from __future__ import annotations

from .._content import ToolCall
from .._messages import AssistantMessage, Message, ToolResultMessage
from ._base import Change, Messages, PassContext, PassResult, change

__all__ = ["drop_failed_turns"]

STEP = "drop_failed_turns"
_FAILED = frozenset({"error", "aborted"})


def drop_failed_turns(messages: Messages, ctx: PassContext) -> PassResult:
    """Remove failed assistant turns and the tool results answering their calls.

    A result answers a dropped call when it carries that call's id and comes after the
    dropped turn but before another assistant turn that issues the same id.
    """
    if not any(isinstance(m, AssistantMessage) and m.stop_reason in _FAILED for m in messages):
        return messages, []
    out: list[Message] = []
    changes: list[Change] = []
    pending: set[str] = set()
    for index, message in enumerate(messages):
        if isinstance(message, AssistantMessage):
            ids = {b.id for b in message.content if isinstance(b, ToolCall)}
            pending -= ids
            if message.stop_reason in _FAILED:
                pending |= ids
                changes.append(
                    change(
                        step=STEP,
                        kind="failed_turn_dropped",
                        index=index,
                        detail=f"stop reason {message.stop_reason}",
                    )
                )
                continue
        elif isinstance(message, ToolResultMessage) and message.tool_call_id in pending:
            changes.append(change(step=STEP, kind="failed_turn_result_dropped", index=index))
            continue
        out.append(message)
    return (tuple(out) if changes else messages), changes
