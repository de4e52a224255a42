"""Pass 8: turn order the target accepts.

- Consecutive user turns are merged where the target needs strict alternation
  (Anthropic-compatible endpoints: ``400 Incorrect role information``; Mistral templates
  on vLLM: ``Conversation roles must alternate``). String content stays string content:
  a known upstream merge dropped it.
- Consecutive assistant turns are merged where the target rejects them (Gemini; and
  Anthropic: ``roles must alternate between "user" and "assistant"``).
- A history that starts with an assistant turn gets a minimal user turn in front where
  the target requires one (Gemini, Bedrock, Anthropic).
System and developer messages are not turns: they neither separate nor start turns.
"""

from __future__ import annotations

from typing import Any

from .._build import rebuilt, trusted
from .._content import TextContent
from .._messages import AssistantMessage, Message, SystemMessage, UserMessage
from .._openai._parts import is_plain_text
from ._base import Change, Messages, PassContext, PassResult, change
from ._normalize import has_content_parts
from ._reconcile import reconcile_turn

__all__ = ["LEADING_USER_TEXT", "validate_turn_order"]

STEP = "validate_turn_order"
LEADING_USER_TEXT = "(conversation continues)"


def _plain_string(message: UserMessage | AssistantMessage) -> bool:
    return (
        message.content_form == "string"
        and len(message.content) == 1
        and is_plain_text(message.content[0])
    )


def _merge_users(first: UserMessage, second: UserMessage) -> UserMessage:
    if _plain_string(first) and _plain_string(second):
        text = f"{first.content[0].text}\n\n{second.content[0].text}"  # type: ignore[union-attr]
        return rebuilt(first, content=(trusted(TextContent, text=text),))
    update: dict[str, Any] = {"content": first.content + second.content, "content_form": "list"}
    if first.cache_control is not None and first.content:
        *head, last = first.content
        marked = rebuilt(last, cache_control=first.cache_control)
        update["content"] = (*head, marked, *second.content)
    update["cache_control"] = second.cache_control
    update["extra"] = {**second.extra, **first.extra}
    return rebuilt(first, **update)


def _merge_assistants(
    first: AssistantMessage, second: AssistantMessage, index: int, ctx: PassContext
) -> AssistantMessage:
    """One turn from two.

    A same-model turn merged with a foreign one is foreign, and is reconciled as such:
    its signatures cannot be vouched for any more.
    """
    if ctx.replayable(first) != ctx.replayable(second):
        first, _ = reconcile_turn(_as_foreign(first), index, ctx)
        second, _ = reconcile_turn(_as_foreign(second), index, ctx)
    content = first.content + second.content
    if _plain_string(first) and _plain_string(second):
        form = "string"
    else:
        form = "list" if has_content_parts(content) else "null"
    if form == "string":
        text = "".join(b.text for b in content if isinstance(b, TextContent))
        content = (trusted(TextContent, text=text),)
    extra = {**second.extra, **first.extra}
    return rebuilt(first, content=content, content_form=form, extra=extra, stamped=False)


def _as_foreign(message: AssistantMessage) -> AssistantMessage:
    return rebuilt(message, provider=None, api="unknown", model="unknown")


def _merge(previous: Message, message: Message, index: int, ctx: PassContext) -> Message | None:
    if isinstance(previous, UserMessage) and isinstance(message, UserMessage):
        return _merge_users(previous, message) if ctx.policy.merge_user_turns else None
    if isinstance(previous, AssistantMessage) and isinstance(message, AssistantMessage):
        if not ctx.policy.merge_assistant_turns:
            return None
        return _merge_assistants(previous, message, index, ctx)
    return None


def _last_turn(out: list[Message]) -> int | None:
    """Position of the last message in ``out`` that is a turn (not system/developer)."""
    for position in range(len(out) - 1, -1, -1):
        if not isinstance(out[position], SystemMessage):
            return position
    return None


def _in_order(messages: Messages, ctx: PassContext) -> bool:
    """No two turns the policy merges are adjacent, and no user turn must be prepended."""
    policy = ctx.policy
    previous: Message | None = None
    for message in messages:
        if isinstance(message, SystemMessage):
            continue
        if previous is None and isinstance(message, AssistantMessage):
            if policy.require_user_first:
                return False
        if type(message) is type(previous) and (
            (isinstance(message, UserMessage) and policy.merge_user_turns)
            or (isinstance(message, AssistantMessage) and policy.merge_assistant_turns)
        ):
            return False
        previous = message
    return True


def validate_turn_order(messages: Messages, ctx: PassContext) -> PassResult:
    """Merge consecutive same-role turns and add a leading user turn, per policy.

    System and developer messages between two merged turns move before the merged turn,
    which takes the later turn's place so that turn's tool results stay right after it
    (LiteLLM lifts system messages out of the conversation for these targets anyway).
    """
    if _in_order(messages, ctx):
        return messages, []
    return _reorder(messages, ctx)


def _reorder(messages: Messages, ctx: PassContext) -> PassResult:
    out: list[Message] = []
    changes: list[Change] = []
    for index, message in enumerate(messages):
        last = None if isinstance(message, SystemMessage) else _last_turn(out)
        merged = _merge(out[last], message, index, ctx) if last is not None else None
        if merged is not None and last is not None:
            kind = (
                "user_turns_merged"
                if isinstance(message, UserMessage)
                else "assistant_turns_merged"
            )
            changes.append(change(step=STEP, kind=kind, index=index))
            del out[last]
            out.append(merged)
        else:
            out.append(message)
    first = next((m for m in out if not isinstance(m, SystemMessage)), None)
    if ctx.policy.require_user_first and isinstance(first, AssistantMessage):
        at = out.index(first)
        out.insert(
            at, trusted(UserMessage, content=(trusted(TextContent, text=LEADING_USER_TEXT),))
        )
        changes.append(change(step=STEP, kind="leading_user_turn_added", index=at))
    return (tuple(out) if changes else messages), changes
