"""Claude with thinking on: an unfinished tool loop's last turn starts with its thinking.

When a request asks Claude to think, Anthropic requires the last assistant turn of a
tool loop still in progress (its calls answered by the results that end the request)
to start with a thinking block Claude signed: ``Expected `thinking` or
`redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final
`assistant` message must start with a thinking block``. After a switch to Claude in the
middle of a tool loop (a fallback, a router, a user changing model) that turn is another
model's: its thinking, if any, cannot be replayed (it went out as text), so there is no
signed block to give. The only request Anthropic accepts then is one without thinking:
the fix removes ``thinking`` and ``reasoning_effort`` (LiteLLM maps both to Claude's
thinking) for this request alone. Claude thinks again on the next request, once the
loop has a turn of its own. LiteLLM makes the same repair only on its chat path and only
under the global ``litellm.modify_params`` (LiteLLM issues #14194, #9020, #18926).

The rule reads the request's parameters as well as its messages, and runs after every
rule that changes turns: it judges the last assistant turn as it will be sent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final

from .._content import TextContent, ThinkingContent
from .._messages import AssistantMessage
from ._codes import Code
from ._conversation import Conversation, RuleContext
from ._findings import Finding, Problem
from ._rule import Rule

__all__ = ["THINKING_PARAMS", "ThinkingToolLoop", "asks_to_think"]

THINKING_PARAMS: Final = ("thinking", "reasoning_effort")
"""The request parameters that turn Claude's thinking on (LiteLLM maps both to it)."""


def asks_to_think(name: str, value: Any) -> bool:
    """Whether request parameter ``name`` set to ``value`` turns Claude's thinking on.

    ``thinking`` does unless absent or ``{"type": "disabled"}``; ``reasoning_effort``
    (a string, or a mapping with ``effort``) unless absent or ``"none"``, as LiteLLM
    maps it.
    """
    if value is None:
        return False
    if name == "thinking":
        return not (isinstance(value, Mapping) and value.get("type") == "disabled")
    effort = value.get("effort") if isinstance(value, Mapping) else value
    return isinstance(effort, str) and effort != "none"


class ThinkingToolLoop(Rule):
    """Send without thinking a request whose open tool loop's turn cannot start with it."""

    code: ClassVar[Code] = "thinking_tool_loop"
    params: ClassVar[tuple[str, ...]] = THINKING_PARAMS

    def applies(self, ctx: RuleContext) -> bool:
        """Only Claude (Anthropic's API, and Claude on Bedrock or Vertex AI)."""
        return ctx.policy.thinking_opens_tool_loop

    def find(self, conv: Conversation) -> list[Finding]:
        """The open loop's last turn, when thinking is asked for and it cannot start so.

        The turn is judged as LiteLLM sends it (``Wire.leading_block``): consecutive
        assistant messages make one turn, a message that sends nothing is left out of
        it, and its first block must be thinking that this model signed.
        """
        asked = [name for name in self.params if asks_to_think(name, conv.params.get(name))]
        if not asked:
            return []
        turn = _last_turn(conv)
        if turn is None or not any(conv.facts(index).calls for index, _ in turn):
            return []  # no tool loop in progress
        lead, first = turn[0]
        if first == "thinking" and conv.replayable(lead):
            return []
        found = first if first != "thinking" else _after_foreign_thinking(conv, lead)
        reason = (
            "the last turn of the unfinished tool loop has no thinking of this model's "
            f"to start with: sent without {' and '.join(asked)}"
        )
        problem = Problem("content[0]", reason, "thinking_not_first", values={"found": found})
        return [Finding(lead, (problem,))]

    def fix(self, conv: Conversation, found: Sequence[Finding]) -> Conversation:
        """The same messages, without the parameters that ask for thinking."""
        params = conv.params
        kept = {k: v for k, v in params.items() if k not in self.params or not asks_to_think(k, v)}
        return conv.with_params(kept)


def _last_turn(conv: Conversation) -> list[tuple[int, str]] | None:
    """The last assistant turn as sent: (message, what it starts with) for each message.

    The last run of consecutive assistant messages that sends anything (a run that
    sends nothing is left out, and the turns around it meet), messages that send
    nothing left out; ``None`` when there is no assistant turn.
    """
    api = conv.ctx.target.api
    index = len(conv) - 1
    while index >= 0:
        while index >= 0 and conv.facts(index).role != "assistant":
            index -= 1
        run: list[tuple[int, str]] = []
        while index >= 0 and conv.facts(index).role == "assistant":
            first = conv.wire.leading_block(conv.slots[index].raw, api)
            if first is not None:
                run.append((index, first))
            index -= 1
        if run:
            return run[::-1]
    return None


def _after_foreign_thinking(conv: Conversation, index: int) -> str:
    """What a turn starts with once another model's thinking is turned into text."""
    message = conv.message(index)
    assert isinstance(message, AssistantMessage)
    return "text" if any(_as_text(block) for block in message.content) else "tool_use"


def _as_text(block: Any) -> bool:
    """A block that reaches Claude as text (another model's thinking becomes text)."""
    if isinstance(block, TextContent):
        return bool(block.text.strip())
    return isinstance(block, ThinkingContent) and not block.redacted and bool(block.thinking)
