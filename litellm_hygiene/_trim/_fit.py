"""Fit a transcript into a model's context window, dropping whole exchanges oldest first.

A Router fallback hands the same history to a smaller model and the call fails with
``ContextWindowExceededError``: nothing trims between the hops. LiteLLM's own
``trim_messages`` cuts tool calls from their results and its cost grows faster than the
transcript. :func:`fit_to_context` counts each message once, with the tokenizer
:func:`~litellm_hygiene.predict_overflow` uses (local, never downloaded), and drops
whole units oldest first, so its cost is linear and what it keeps is still accepted by
every target's rules:

- before the latest user message, a unit is a *round*: a user message and the
  exchanges that answer it (dropping the user message alone would leave two assistant
  turns, or an assistant turn first; dropping an exchange alone, two user turns);
- after it, a unit is one *exchange*: an assistant turn with all its calls and all
  their results;
- system/developer messages and the latest user message are never dropped.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import ConfigurationError, InvalidMessageError
from .._overflow._predict import _check_arguments, _limits, _local_tokenizer
from ._structure import SYSTEM_ROLES, Unit, role_of, units_of
from ._thinking import drop_thinking_after, thinking_changes_content, without_thinking

__all__ = ["COUNTER_OPTIONS", "DEFAULT_MARKER", "FitResult", "fit_to_context"]

DEFAULT_MARKER = (
    "Earlier messages of this conversation were omitted to fit the model's context window."
)
"""The text of the marker message that stands for what was dropped."""

COUNTER_OPTIONS: Mapping[str, Any] = {
    "use_default_image_token_count": True,
    "default_token_count": 1024,
}
"""How LiteLLM's ``token_counter`` is asked to count. An image is counted at its default
size: otherwise LiteLLM downloads a remote ``detail: high`` image to measure it (a
request to any URL a client names, from the proxy, and a wait on the event loop).
Content LiteLLM cannot count (an audio part, a part type newer than it) is counted as
1,024 tokens rather than failing the whole fit: an estimate on the large side only makes
the fit drop more."""

_PRIMING = 3
"""Tokens LiteLLM's counter adds once per request (the reply's priming), not per
message: ``token_counter`` of one message minus this is that message's share."""


@dataclass(frozen=True)
class FitResult:
    """A transcript fitted to a window, and what fitting it did.

    Attributes:
        messages: The messages to send: a new list; the caller's message objects are
            shared, except turns whose thinking was dropped (copies).
        removed: Positions, in the input, of the messages dropped.
        tokens: Input tokens of ``messages`` (and the tools) by LiteLLM's counter.
        original_tokens: The same count for the input.
        context_window: The model's input window used.
        reserved_output: Tokens kept free for the answer.
        available_tokens: ``context_window - reserved_output``.
        marker: Whether a marker message stands for what was dropped.
        thinking_dropped: Kept assistant turns whose signed thinking was dropped (it
            is bound to the messages before it, which changed).
        open_tool_loop: The request ends in a tool loop still in progress whose turn
            lost its thinking: with thinking enabled, send it without thinking.
    """

    messages: list[Any]
    removed: tuple[int, ...]
    tokens: int
    original_tokens: int
    context_window: int
    reserved_output: int
    available_tokens: int
    marker: bool = False
    thinking_dropped: int = 0
    open_tool_loop: bool = False

    @property
    def changed(self) -> bool:
        """Whether anything was dropped."""
        return bool(self.removed)


class _Counter:
    """LiteLLM's token counter, one message at a time (its count is a sum per message)."""

    def __init__(self, model: str, tools: Sequence[Mapping[str, Any]] | None) -> None:
        import litellm

        tokenizer = _local_tokenizer(model)
        self._count = functools.partial(
            litellm.token_counter, model=model, custom_tokenizer=tokenizer, **COUNTER_OPTIONS
        )
        self._tools = [dict(t) for t in tools] if tools else None

    def message(self, message: Any, index: int) -> int:
        try:
            whole = self._count(messages=[message])
        except Exception as err:  # a message shape LiteLLM's counter cannot read
            raise InvalidMessageError(
                index, "content", f"LiteLLM's token counter cannot read it ({type(err).__name__})"
            ) from err
        return int(whole) - _PRIMING

    def extra(self, with_system: bool) -> int:
        """Tokens the request costs beyond its messages (priming, tool definitions)."""
        if not self._tools:
            return _PRIMING
        probe = [{"role": "system" if with_system else "user", "content": ""}]
        base = self._count(messages=probe)
        full = self._count(messages=probe, tools=self._tools)
        return int(full) - int(base) + _PRIMING


def fit_to_context(
    messages: Sequence[Any],
    model: str,
    *,
    max_tokens: int | None = None,
    context_window: int | None = None,
    tools: Sequence[Mapping[str, Any]] | None = None,
    model_info: Mapping[str, Any] | None = None,
    marker: bool | str = False,
) -> FitResult:
    """Trim ``messages`` to ``model``'s input window minus the output it asks for.

    Keeps system/developer messages and the latest user message; drops rounds before
    it and exchanges after it, oldest first, until the rest fits. A call is never kept
    without its results, nor a result without its call. After a cut, kept assistant
    turns lose their signed thinking (see :mod:`._thinking`).

    Args:
        messages: OpenAI-shaped messages (never modified).
        model: LiteLLM model name; its window comes from LiteLLM's model map.
        max_tokens: Output the request reserves (capped at the model's output limit).
        context_window: Override of the input window.
        tools: The request's tool definitions; they count towards the prompt.
        model_info: A deployment's ``model_info`` overrides (``max_input_tokens``...).
        marker: ``True`` (or a text) puts one system message in place of what was
            dropped, right after the leading system messages.

    Returns:
        The fitted transcript and what fitting did; the input's messages, in a new
        list, when it fits already.

    Raises:
        litellm.ContextWindowExceededError: Even the system messages and the latest user
            message (and the marker) do not fit, before anything is sent.
        ConfigurationError: The window is unknown (pass ``context_window``), or a
            token argument is negative.
        InvalidMessageError: LiteLLM's counter cannot read a message.
    """
    _check_arguments(max_tokens, context_window, None)
    limits = _limits(model, context_window, None, model_info)
    if limits.window is None:
        raise ConfigurationError(
            f"the context window of {model!r} is unknown to LiteLLM: pass context_window"
        )
    reserved = min(max_tokens or 0, limits.max_output or max_tokens or 0)
    room = _Room(limits.window, reserved)
    counter = _Counter(model, tools)
    counts = [counter.message(m, i) for i, m in enumerate(messages)]
    has_system = any(role_of(m) in SYSTEM_ROLES for m in messages)
    total = sum(counts) + counter.extra(has_system)
    if total <= room.available:
        return room.result(list(messages), (), total, total)
    plan = _plan(units_of(messages))
    if not plan.blocks:  # nothing to cut: the transcript goes as it is, or not at all
        raise _too_long(model, total, room)
    marker_message, start = _cost_after_a_cut(messages, counts, counter, marker, has_system)
    minimal = start - sum(counts[i] for block in plan.blocks for i in block)
    if minimal > room.available:
        raise _too_long(model, minimal, room)
    return _drop(messages, plan, counts, start, room, marker_message, total)


def _cost_after_a_cut(
    messages: Sequence[Any],
    counts: list[int],
    counter: _Counter,
    marker: bool | str,
    has_system: bool,
) -> tuple[dict[str, str] | None, int]:
    """The marker message, and the whole transcript's count once anything is cut.

    A cut adds the marker and takes the thinking of every turn it keeps (they all come
    after it). LiteLLM's counter reads a turn's ``content``, the text of its thinking
    parts included, but skips ``thinking_blocks`` (a list under another key): a turn whose
    content changes, thinking parts dropped or a turn of thinking only given a short
    text, is counted again (its count in ``counts`` is updated). So the count after a
    cut may be below the input's.
    """
    text = DEFAULT_MARKER if marker is True else marker or None
    marker_message = None if text is None else {"role": "system", "content": text}
    start = sum(counts) + counter.extra(has_system or marker_message is not None)
    if marker_message is not None:
        start += counter.message(marker_message, len(messages))
    for index, message in enumerate(messages):
        if thinking_changes_content(message):
            after = counter.message(without_thinking(message), index)
            start, counts[index] = start - counts[index] + after, after
    return marker_message, start


@dataclass(frozen=True)
class _Room:
    window: int
    reserved: int

    @property
    def available(self) -> int:
        return self.window - self.reserved

    def result(
        self, messages: list[Any], removed: tuple[int, ...], tokens: int, original: int
    ) -> FitResult:
        return FitResult(
            messages=messages,
            removed=removed,
            tokens=tokens,
            original_tokens=original,
            context_window=self.window,
            reserved_output=self.reserved,
            available_tokens=self.available,
        )


@dataclass(frozen=True)
class _Plan:
    """What may be dropped, oldest first, and what never is."""

    blocks: list[list[int]]
    pinned: list[int]


def _plan(units: list[Unit]) -> _Plan:
    """Droppable blocks: rounds before the latest user message, exchanges after it."""
    users = [u.head for u in units if u.kind == "user"]
    latest = users[-1] if users else None
    blocks: list[list[int]] = []
    pinned: list[int] = [u.head for u in units if u.kind == "system"]
    in_round = False
    for unit in units:
        if unit.kind == "system":
            continue
        if latest is not None and unit.head == latest:
            pinned.append(latest)
        elif latest is not None and unit.head < latest and (in_round and unit.kind != "user"):
            blocks[-1].extend(unit.indices)
        else:
            blocks.append(list(unit.indices))
            in_round = latest is not None and unit.head < latest
    if latest is None and blocks:
        pinned.extend(blocks.pop())  # no user message: the newest exchange is the anchor
    return _Plan(blocks, pinned)


def _drop(
    messages: Sequence[Any],
    plan: _Plan,
    counts: list[int],
    start: int,
    room: _Room,
    marker_message: dict[str, str] | None,
    original: int,
) -> FitResult:
    tokens, dropped = start, 0
    for block in plan.blocks:
        # At least one: the input does not fit, and its thinking goes only with a cut,
        # even when ``start`` (thinking gone) fits.
        if dropped and tokens <= room.available:
            break
        tokens -= sum(counts[i] for i in block)
        dropped += 1
    removed = sorted(i for block in plan.blocks[:dropped] for i in block)
    kept = sorted(plan.pinned + [i for block in plan.blocks[dropped:] for i in block])
    fitted = drop_thinking_after(messages, kept, removed[0])
    out = fitted.messages
    if marker_message is not None:
        lead = next((n for n, m in enumerate(out) if role_of(m) not in SYSTEM_ROLES), len(out))
        out = [*out[:lead], marker_message, *out[lead:]]
    return FitResult(
        messages=out,
        removed=tuple(removed),
        tokens=tokens,
        original_tokens=original,
        context_window=room.window,
        reserved_output=room.reserved,
        available_tokens=room.available,
        marker=marker_message is not None,
        thinking_dropped=fitted.dropped,
        open_tool_loop=fitted.open_loop,
    )


def _too_long(model: str, minimal: int, room: _Room) -> Exception:
    from litellm.exceptions import ContextWindowExceededError

    from .._resolve import resolve_target

    message = (
        f"litellm_hygiene: even the minimal transcript (system messages and the latest user "
        f"turn) needs {minimal} input tokens, but {model} has {room.available} available "
        f"(context window {room.window}, {room.reserved} reserved for output)"
    )
    provider = resolve_target(model).provider or ""
    return ContextWindowExceededError(message=message, model=model, llm_provider=provider)
