"""What a rule finds, and what the pipeline reports it changed: records, no content.

A rule's find gives a :class:`Finding` per message, each with its :class:`Problem`
places; the pipeline reports a :class:`Change` per problem it fixed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

from ._codes import Code
from ._wording import ErrorKind, PathKind

__all__ = ["NO_VALUES", "Change", "Finding", "Problem", "counted", "quoted_id", "shown_id"]

NO_VALUES: Final[Mapping[str, Any]] = MappingProxyType({})
"""A problem's fill-ins when it has none (one shared, read-only mapping)."""


_SHOWN: Final = 80
"""The most characters of an id a reason or a wording shows."""


def shown_id(value: str) -> str:
    """An id as a problem shows it: cut after :data:`_SHOWN` characters."""
    return value if len(value) <= _SHOWN else f"{value[:_SHOWN]}..."


def quoted_id(value: str) -> str:
    """:func:`shown_id` as a reason quotes it.

    ``repr`` written out: compiled, an f-string with ``!r`` formats every field of the
    string through ``str.format`` (a third of a microsecond a reason).
    """
    return repr(shown_id(value))


class Problem:
    """One place in one message that breaks a rule, without message content.

    A plain record, like :class:`Finding`, compared and hashed by value. Written out
    rather than a dataclass: a dataclass field needs a default factory for a mapping,
    and with one the compiled build runs the dataclass's own ``__init__``, in Python
    (0.6 µs a problem, and a cross-model request has one per renamed id).

    Attributes:
        field: Path inside the message (``tool_calls[0].id``); empty for all of it.
        reason: What is wrong (or what the fix did), in words; never message text,
            keys or signatures.
        kind: Which of the rule's provider wordings applies; ``None`` when no provider
            is known to reject it (the rule is hygiene's own, or LiteLLM copes).
        path: Which field the wording's ``{where}`` names.
        local: The block's position inside the message (for wire positions).
        call: The tool call's position, counted after the blocks written before calls.
        values: Fill-ins for the wording (``id``, ``limit``...).
    """

    __slots__ = ("call", "field", "kind", "local", "path", "reason", "values")

    def __init__(
        self,
        field: str,
        reason: str,
        kind: ErrorKind | None = None,
        path: PathKind | None = None,
        local: int = 0,
        call: int | None = None,
        values: Mapping[str, Any] = NO_VALUES,
    ) -> None:
        """Hold one problem's place, reason and wording fill-ins."""
        self.field = field
        self.reason = reason
        self.kind = kind
        self.path = path
        self.local = local
        self.call = call
        self.values = values

    def _fields(self) -> tuple[Any, ...]:
        return (self.field, self.reason, self.kind, self.path, self.local, self.call, self.values)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Problem):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Copied and pickled through __init__ (compiled, the class's __new__ runs it).
        fields = self._fields()
        return Problem, fields if self.values is not NO_VALUES else fields[:-1]

    def __repr__(self) -> str:
        names = ("field", "reason", "kind", "path", "local", "call", "values")
        shown = ", ".join(f"{n}={v!r}" for n, v in zip(names, self._fields(), strict=True))
        return f"Problem({shown})"


_KEEP: Final[Any] = object()


# Finding and Change are records no code changes once built, yet not frozen: a frozen
# dataclass sets each field through object.__setattr__, which the compiled build cannot
# make native (0.33 µs a record against 0.03 µs), and a Mistral request builds about
# 2,000 of them. unsafe_hash keeps them hashable, by value, as frozen ones were. Their
# __init__ is written out (init=False): the one dataclass writes is a Python function,
# a frame per record in the compiled build (0.14 µs against 0.035 µs from Python).
@dataclass(slots=True, unsafe_hash=True, init=False)
class Finding:
    """What a rule found at one message: its problems, and what its fix will put there.

    Attributes:
        index: The message's position in the conversation the rule read (``None``
            for the request as a whole).
        problems: Every place in it that breaks the rule.
        replacement: For rules that fix one message at a time: the fixed message
            (``None`` drops it), worked out while finding so the fix is not computed
            twice.
    """

    index: int | None
    problems: tuple[Problem, ...]
    replacement: Any = _KEEP

    def __init__(
        self, index: int | None, problems: tuple[Problem, ...], replacement: Any = _KEEP
    ) -> None:
        self.index = index
        self.problems = problems
        self.replacement = replacement

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Copied and pickled through __init__ (compiled, the class's __new__ runs it);
        # "keep" stays the one marker it is.
        if self.replacement is _KEEP:
            return Finding, (self.index, self.problems)
        return Finding, (self.index, self.problems, self.replacement)


@dataclass(slots=True, unsafe_hash=True, init=False)
class Change:
    """One thing the pipeline changed, without message content.

    Attributes:
        kind: The rule that made it (its code).
        index: Position of the message in that rule's input, when there is one.
        detail: What was done, in words; never message text, keys or signatures.
    """

    kind: Code
    index: int | None = None
    detail: str = ""

    def __init__(self, kind: Code, index: int | None = None, detail: str = "") -> None:
        self.kind = kind
        self.index = index
        self.detail = detail

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Copied and pickled through __init__ (compiled, the class's __new__ runs it).
        return Change, (self.kind, self.index, self.detail)


def counted(changes: Sequence[Change], leaving_out: Set[str]) -> dict[str, int]:
    """How many of ``changes`` each rule made, leaving out the codes in ``leaving_out``.

    Counted by runs: a rule's changes come together, each carrying the rule's code (one
    string object), and a request of a long session has one per message a rule wrote.
    """
    counts: dict[str, int] = {}
    last: str | None = None
    run = 0
    for change in changes:
        kind: str = change.kind
        if kind is not last:
            if run:
                assert last is not None
                counts[last] = counts.get(last, 0) + run
            last = kind
            run = 0
            if kind in leaving_out:
                continue
        elif not run:
            continue  # a run of a code left out
        run += 1
    if run:
        assert last is not None
        counts[last] = counts.get(last, 0) + run
    return counts
