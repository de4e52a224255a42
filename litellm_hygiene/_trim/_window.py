"""A sliding window over a transcript that never breaks a tool exchange.

Agent loops grow without bound; the usual remedy is to send only the most recent
messages. Cut naively, the window starts with a tool result whose call was cut away,
which every provider rejects (``messages with role 'tool' must be a response to a
preceding message with 'tool_calls'``). :class:`SlidingWindow` keeps the instructions,
the most recent messages, and tool exchanges whole: a call and all its results (parallel
calls included) are kept or cut together.

The window does not make the transcript valid for a particular target (Anthropic wants a
user turn first, Mistral no user turn right after a tool result): inside
:class:`~litellm_hygiene.HygieneCallback` the rules run again on what it kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._errors import ConfigurationError
from ._structure import SYSTEM_ROLES, role_of, units_of

__all__ = ["SlidingWindow"]


class SlidingWindow:
    """Keep the recent part of a transcript: by message count, by user turns, or both.

    With ``max_messages`` it keeps every system/developer message (by role, wherever
    it is) when ``preserve_system_messages`` is set, then the most recent messages so
    that at most ``max_messages`` are kept in all, then drops every tool result whose
    call was cut away. A window over ``[System, User, Assistant+Calls(1,2), Result(1),
    Result(2), Assistant+Calls(3), Result(3)]`` with ``max_messages=4`` is ``[System,
    Assistant+Calls(3), Result(3)]``: the last three non-system messages would start
    with ``Result(2)``, whose call is gone.

    Whether or not anything was cut, results before the first kept non-system message
    go too, as in the seed: ``[System, Result(1), Result(2)]`` is ``[System]`` even
    under a limit of 3, since no provider accepts a result that answers no call.

    With ``max_user_turns`` it keeps the last N user messages and everything after the
    first of them (the form agent frameworks use for long sessions); with both, the turn
    limit applies first.

    Since a transcript only grows at its end, a call and its results are cut together:
    the window never keeps a call without the results the transcript has for it, nor
    splits one assistant turn's parallel calls from their results.

    Args:
        max_messages: The most messages to keep, system messages included.
        max_user_turns: The most user turns to keep.
        preserve_system_messages: Keep every system/developer message; when off they
            count and are cut like the others.

    Raises:
        ConfigurationError: Neither limit is given, or one is not a positive integer.
    """

    def __init__(
        self,
        max_messages: int | None = None,
        *,
        max_user_turns: int | None = None,
        preserve_system_messages: bool = True,
    ) -> None:
        """Check and keep the limits."""
        for name, value in (("max_messages", max_messages), ("max_user_turns", max_user_turns)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise ConfigurationError(f"{name} must be an integer, got {value!r}")
            if value is not None and value < 1:
                raise ConfigurationError(f"{name} must be at least 1, got {value}")
        if max_messages is None and max_user_turns is None:
            raise ConfigurationError("SlidingWindow needs max_messages or max_user_turns")
        self.max_messages = max_messages
        self.max_user_turns = max_user_turns
        self.preserve_system_messages = preserve_system_messages

    def __repr__(self) -> str:
        """The window's limits."""
        return (
            f"SlidingWindow(max_messages={self.max_messages}, max_user_turns="
            f"{self.max_user_turns}, preserve_system_messages={self.preserve_system_messages})"
        )

    def apply(self, messages: Sequence[Any]) -> list[Any]:
        """The kept messages, in order, as a new list (the message objects are shared).

        ``messages`` is never modified; OpenAI-shaped dicts and pydantic message objects
        (LiteLLM's ``Message``) are both read, by ``role``, ``tool_calls[].id`` and
        ``tool_call_id`` only.
        """
        return [messages[i] for i in self.select(messages)]

    def select(self, messages: Sequence[Any]) -> list[int]:
        """The positions of the kept messages, ascending."""
        roles = [role_of(m) for m in messages]
        kept = list(range(len(messages)))
        if self.max_user_turns is not None:
            kept = self._last_turns(kept, roles, self.max_user_turns)
        if self.max_messages is not None:
            kept = self._last_messages(kept, roles, self.max_messages)
        if len(kept) < len(messages):
            kept = self._whole_exchanges(messages, kept)
        return self._without_leading_results(kept, roles)

    def _pinned(self, role: Any) -> bool:
        return self.preserve_system_messages and role in SYSTEM_ROLES

    def _last_turns(self, kept: list[int], roles: list[Any], limit: int) -> list[int]:
        users = [i for i in kept if roles[i] == "user"]
        if len(users) <= limit:
            return kept
        cut = users[-limit]
        return [i for i in kept if i >= cut or self._pinned(roles[i])]

    def _last_messages(self, kept: list[int], roles: list[Any], limit: int) -> list[int]:
        if len(kept) <= limit:
            return kept
        pinned = [i for i in kept if self._pinned(roles[i])]
        others = [i for i in kept if not self._pinned(roles[i])]
        room = max(limit - len(pinned), 0)
        tail = others[len(others) - room :] if room else []
        return sorted(pinned + tail)

    @staticmethod
    def _whole_exchanges(messages: Sequence[Any], kept: list[int]) -> list[int]:
        """Drop the results whose call was cut (only a cut can leave one)."""
        chosen = set(kept)
        head: dict[int, int] = {}
        for unit in units_of(messages):
            for index in unit.indices:
                head[index] = unit.head
        return [i for i in kept if head[i] in chosen]

    @staticmethod
    def _without_leading_results(kept: list[int], roles: list[Any]) -> list[int]:
        """Drop the results before the first kept non-system message, cut or not.

        The seed checks this on every window, not only after a cut: a transcript that
        already starts with results (a malformed history) is sent without them, and when
        nothing else but system messages remains, only those are sent.
        """
        out: list[int] = []
        leading = True
        for index in kept:
            if leading and roles[index] in ("tool", "function"):
                continue  # a result before any kept call: its call is not in the window
            if roles[index] not in SYSTEM_ROLES:
                leading = False
            out.append(index)
        return out
