"""What hygiene decided for one deployment call: :class:`Prepared`.

The core (:mod:`._request`) makes it, the engine counts it, the request side
(:mod:`._prepare`) puts it in the call's kwargs, and a shape's writer
(:mod:`._shapes`) writes it back in the call's own shape.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._recall import Seen
from .._rules import Slot
from .._rules._conversation import seen_of
from .._target import TargetModel

__all__ = ["Prepared"]


@dataclass(frozen=True)
class Prepared:
    """What hygiene decided for one deployment call.

    Attributes:
        target: The resolved deployment.
        messages: The messages to send: the caller's own list when nothing changed.
        changes: Count of changes per kind (no content). Removing hygiene's own stamp
            is bookkeeping, not a change to the conversation, so it is not counted.
        restored: Assistant turns whose provenance came from the store (only turns
            whose provenance can change how they are sent are looked up).
        changed: Whether ``messages`` differ from the caller's (stamps removed count).
        store_error: The type of a provenance store failure; the request was then
            transformed without restored stamps.
        trimmed: What the window and the fit left out (counts), when they did.
        drop_params: Request parameters to send without: a rule removed them (see
            ``Rule.params``), on the transcript as it is finally sent.
        writer: Writes the messages into the kwargs of a call of another shape.
        unread: Each message that could not be read (``messages[3].role: ...``; never
            the caller's values): kept as it came, at its place, while the rules
            worked on the rest.
        slots: The slots of the messages to send, where a recall remembers them
            (``None`` without one, or when trimming changed the messages): see
            :attr:`seen`.
    """

    target: TargetModel
    messages: Sequence[Any]
    changes: dict[str, int] = field(default_factory=dict)
    restored: int = 0
    changed: bool = False
    store_error: str | None = None
    trimmed: dict[str, int] | None = None
    drop_params: tuple[str, ...] = ()
    writer: Callable[[Prepared, Mapping[str, Any]], dict[str, Any]] | None = None
    unread: tuple[str, ...] = ()
    slots: Sequence[Slot] | None = None

    @property
    def seen(self) -> list[Seen | None] | None:
        """What a recall remembers of each message to send (``_recall``).

        Where it holds one: a caller's message, or one a remembered walk of the message
        rules wrote (see ``Conversation.remembered``); ``None`` without. Worked out when
        a writer asks.
        """
        return None if self.slots is None else seen_of(self.slots)

    def apply(self, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """New call kwargs: these messages, without the parameters to drop.

        In the call's own shape: ``writer`` writes the messages of a call that is not a
        chat completion (see :mod:`._shapes`).
        """
        if self.writer is not None:
            return self.writer(self, kwargs)
        kept = {k: v for k, v in kwargs.items() if k not in self.drop_params}
        return {**kept, "messages": list(self.messages)}
