"""The one narrow interface through which the rules see a wire shape.

A rule reads a conversation as :class:`~litellm_hygiene._view._facts.Facts` (one tuple
per message, read once) and as the neutral model (decoded only where it fixes), and
it reads and writes wire messages only through a :class:`Wire`. Every request shape
implements it: the chat shape (``_openai._wire``), and the chat form of the Anthropic
Messages and Responses shapes with their own wire facts (``_anthropic._wire``).
Where a rule needs a fact only one shape has, the shape states it here; the rule
never asks which shape it reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from .._content import ThinkingOrigin
from .._messages import Api, ContentForm, Message
from ._facts import Facts
from ._plan import WirePlan

__all__ = ["PlainTurn", "Stamp", "ThinkingView", "Wire"]


class Stamp(NamedTuple):
    """A well-formed provenance stamp: who produced the turn (each part may be unknown)."""

    provider: str | None
    api: Api | None
    model: str | None


class ThinkingView(NamedTuple):
    """What a rule reads of one thinking entry, without decoding it.

    Attributes:
        thinking: The readable text (empty when redacted).
        signature: The signature, or a redacted block's payload.
        redacted: The entry is ``redacted_thinking``.
        origin: Where it travelled (as :attr:`ThinkingContent.origin`).
        item: Its ``id`` key (a reasoning item's), if any.
    """

    thinking: str
    signature: str | None
    redacted: bool
    origin: ThinkingOrigin
    item: Any


class PlainTurn(NamedTuple):
    """What a plain assistant turn holds, as the decoder reads it.

    Attributes:
        thinking: Its thinking blocks, in the decoder's order (``thinking_blocks``, or
            else ``reasoning_content``), as read, not decoded.
        text: Its string content; ``None`` when the content is null or absent.
        form: How its content travelled: ``string``, ``null`` or ``absent``.
        signed: For each tool call, whether it carries a thought signature.
    """

    thinking: tuple[ThinkingView, ...]
    text: str | None
    form: ContentForm
    signed: tuple[bool, ...]


class Wire(Protocol):
    """One wire shape of messages, as the rules need it read and written.

    The rules never read a wire message themselves; any shape that implements this
    (OpenAI's, or a test's own) runs through the same rules.

    Attributes:
        system_in_place: A system message after the first turn reaches the provider at
            its place (Anthropic Messages sent as they are). On chat calls LiteLLM's
            converter decides: it lifts every system message into the system prompt
            for Claude, Bedrock and Gemini, and OpenAI-shaped APIs take it in place.
    """

    system_in_place: bool

    def facts(self, raw: Any, index: int, plan: WirePlan) -> Facts:
        """What the rules read of one message; raises ``InvalidMessageError``."""

    def decode(self, raw: Any, index: int) -> Message:
        """The neutral message."""

    def encode(self, message: Message) -> Any:
        """The wire message of a neutral one."""

    def stamp(self, raw: Any) -> Stamp | None:
        """The well-formed provenance stamp, if any."""

    def unstamped(self, raw: Any) -> Any:
        """A copy without the provenance stamp (sharing every other value)."""

    def with_ids(self, raw: Any, calls: Mapping[int, str], result: str | None) -> Any:
        """A copy with new ids, every other value shared.

        ``calls`` maps a call's position (in its facts) to its new id as given;
        ``result``, when given, is a result's new id.
        """

    def arguments(self, raw: Any) -> list[Any]:
        """Each call's arguments as given, in the order of its facts' calls."""

    def signatures(self, raw: Any) -> list[Any]:
        """Every value an assistant message holds where a signature travels.

        An empty place gives nothing; each entry of a list of signatures is a value.
        """

    def evidence(self, raw: Any) -> frozenset[Api]:
        """Protocols an assistant message's content says it came from."""

    def plain_turn(self, raw: Any) -> PlainTurn | None:
        """A plain assistant message's thinking, string content and call signatures.

        ``None`` when it holds more than those and what passes through: decode it.
        """

    def with_reasoning(
        self,
        raw: Any,
        facts: Facts,
        plan: WirePlan,
        text: str | None,
        form: str,
        unsign: Sequence[bool],
    ) -> tuple[Any, Facts]:
        """A plain turn without its thinking, with ``text`` as its content, and its facts.

        ``None`` is no content, written as ``form`` says. The marked calls lose their
        signatures; every other value is shared. ``facts`` are the turn's: the new
        facts are worked out from them (what :meth:`facts` would read).
        """

    def leading_block(self, raw: Any, api: Api) -> str | None:
        """What an assistant message starts with once converted for ``api``.

        ``"thinking"`` (a block the model signed), ``"text"`` or ``"tool_use"``;
        ``None`` when it sends nothing there (or the shape does not know ``api``).
        Consecutive assistant messages are sent as one turn, their blocks in order.
        """

    def plain_fields(self, raw: Any) -> frozenset[str] | None:
        """The response-only keys of a message where each is only a key to remove.

        ``None`` when removing one means more than removing its key: decode it.
        """

    def with_keys_removed(self, raw: Any, keys: frozenset[str]) -> Any:
        """A copy without ``keys``, every other value shared."""

    def text_signatures_read_back(
        self, content: Sequence[Any], psf: dict[str, Any] | None
    ) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
        """A turn's text signatures as this shape will read them back, where that differs.

        ``content``: a neutral turn's blocks; ``psf``: its provider fields. ``None``
        when the blocks read back as they are; else the blocks with no text signed and
        the provider fields that list the signatures.
        """

    def is_plain_text(self, block: object) -> bool:
        """A neutral text block this shape writes as a bare string (nothing but text)."""

    def writes_fields(self, fields: dict[str, Any], signature: str | None, site: bool) -> bool:
        """Whether a call's object is written with provider fields.

        ``fields``: the object's unknown keys; ``signature``: the call's thought
        signature; ``site``: whether the signature travels there.
        """
