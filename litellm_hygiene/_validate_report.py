"""The request under validation, and the one place every rule builds its violations.

A rule names the violation (code, message index, field, explanation) and the kind of
provider error; :meth:`Request.report` finds the wire position and words the error
(see :mod:`litellm_hygiene._validate_wording`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from ._messages import Api
from ._openai._tools import THOUGHT_SEPARATOR
from ._policy import Policy
from ._target import TargetModel
from ._validate_violation import Violation, ViolationCode
from ._validate_wire import (
    Msg,
    WirePosition,
    assistant_prefix_blocks,
    litellm_sends_signature,
    wire_positions,
)
from ._validate_wording import DEFAULTS, ErrorKind, PathKind, wording

__all__ = ["ErrorKind", "PathKind", "Request"]


class Request:
    """One request under validation: its messages, target, policy and wire layout.

    Attributes:
        messages: The caller's messages as dicts; ``None`` where one is unreadable.
        target: Where the request goes.
        policy: What the target requires.
        source: The declared producer of unstamped assistant turns, if any.
        sends_signature: LiteLLM forwards ``__thought__`` id suffixes to this target
            (see :func:`~litellm_hygiene._validate_wire.litellm_sends_signature`).
    """

    def __init__(
        self,
        messages: Sequence[Msg | None],
        target: TargetModel,
        policy: Policy,
        source: TargetModel | None = None,
    ) -> None:
        """Hold the request; wire positions are computed only once a violation needs them."""
        self.messages = messages
        self.target = target
        self.policy = policy
        self.source = source
        self.sends_signature = litellm_sends_signature(target)
        self._whole_id = self.sends_signature and target.family != "gemini"
        self._same: dict[tuple[str | None, Api | None, str | None], bool] = {}

    @functools.cached_property
    def wire(self) -> Sequence[WirePosition]:
        """The wire position of each message (for error wording only)."""
        return wire_positions(self.messages, self.target.family)

    def same_model(self, provider: str | None, api: Api | None, model: str | None) -> bool:
        """``target.is_same_model``, remembered: a transcript names the same few models."""
        key = (provider, api, model)
        found = self._same.get(key)
        if found is None:
            found = self._same[key] = self.target.is_same_model(provider, api, model)
        return found

    def sent_id(self, raw: str) -> str:
        """A tool-call id as LiteLLM sends it to the target (see :func:`sent_id`)."""
        if self._whole_id or THOUGHT_SEPARATOR not in raw:
            return raw
        return raw.partition(THOUGHT_SEPARATOR)[0]

    def _position(self, index: int | None, local: int, call: int | None) -> dict[str, Any]:
        pos = self.wire[index] if index is not None and index < len(self.wire) else None
        msg = self.messages[index] if index is not None and index < len(self.messages) else None
        if call is not None and msg is not None:
            local += assistant_prefix_blocks(msg) + call
        wire_message = pos.message if pos else 0
        return {
            "i": index if index is not None else 0,
            "m": wire_message,
            "next_m": wire_message + 1,
            "c": (pos.offset if pos else 0) + local,
            "exact": self.policy.tool_ids.exact_length or 0,
        }

    def report(
        self,
        code: ViolationCode,
        index: int | None,
        field: str,
        message: str,
        *,
        kind: ErrorKind | None = None,
        path: PathKind | None = None,
        local: int = 0,
        call: int | None = None,
        **fields: Any,
    ) -> Violation:
        """Build a violation, wording the provider's error at this message's wire position.

        ``local`` is the block's position inside the message, added to the message's
        offset inside its (possibly merged) wire message; ``call`` names the position of
        a tool call instead, counted after the thinking and text LiteLLM writes first.
        """
        error = None
        if kind is not None:
            values: dict[str, Any] = DEFAULTS | self._position(index, local, call)
            values["j"] = call if call is not None else 0
            values.update(fields)
            error = wording(self.target.family, kind, path, values)
        return Violation(index=index, field=field, code=code, provider_error=error, message=message)
