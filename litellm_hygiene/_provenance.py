"""Which model produced an assistant turn, and whether its opaque data may be replayed.

Provenance is decided in this order:

1. the stamp the integration writes on responses (``AssistantMessage.stamped``);
2. a source model the caller declares for unstamped turns (filled in before the passes
   run, see :func:`attribute_source`);
3. evidence inside the message: id shapes (``toolu_``, ``tooluse_``, 9 alphanumerics),
   Gemini signature sites (``__thought__`` ids, provider fields), OpenAI Responses
   reasoning items and ``fc_`` ids, signed or redacted thinking;
4. otherwise unknown, handled by the policy's ``unknown_provenance``.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Final

from ._build import rebuilt
from ._content import TextContent, ThinkingContent, ToolCall
from ._messages import Api, AssistantMessage
from ._policy import Policy
from ._target import TargetModel

__all__ = ["attribute_source", "evidence_apis", "is_canonical_base64", "is_replayable"]

_ANTHROPIC_LIKE: Final[frozenset[Api]] = frozenset({"anthropic-messages", "bedrock-converse"})
_OPENAI_LIKE: Final[frozenset[Api]] = frozenset({"openai-chat", "openai-compatible"})
_MISTRAL_ID = re.compile(r"[a-zA-Z0-9]{9}")
_ID_EVIDENCE: Final[tuple[tuple[str, frozenset[Api]], ...]] = (
    ("toolu_", frozenset({"anthropic-messages"})),
    ("srvtoolu_", frozenset({"anthropic-messages"})),
    ("tooluse_", frozenset({"bedrock-converse"})),
    ("fc_", frozenset({"openai-responses"})),
    ("call_", _OPENAI_LIKE | {"openai-responses"}),
)


def is_canonical_base64(value: str) -> bool:
    """``value`` decodes as base64 and re-encodes to itself (Google's check).

    Real Gemini thought signatures always are; anything else (an Anthropic ``msg_`` id
    forwarded by a router, an empty string) is neither valid for Google nor evidence.
    """
    if not value or len(value) % 4:
        return False
    try:
        return base64.b64encode(base64.b64decode(value, validate=True)).decode() == value
    except (binascii.Error, ValueError):
        return False


def _gemini_signature(signature: str | None) -> bool:
    return signature is not None and is_canonical_base64(signature)


def _call_evidence(call: ToolCall) -> frozenset[Api]:
    if call.signature_sites and _gemini_signature(call.thought_signature):
        return frozenset({"gemini"})
    if "|fc_" in call.id:
        return frozenset({"openai-responses"})
    for prefix, apis in _ID_EVIDENCE:
        if call.id.startswith(prefix):
            return apis
    if _MISTRAL_ID.fullmatch(call.id):
        return frozenset({"mistral"})
    return frozenset()


def evidence_apis(message: AssistantMessage) -> frozenset[Api]:
    """Protocols the message's own content says it came from (empty: no evidence).

    When blocks disagree, the intersection wins. If that is empty the turn mixes
    origins: the result is ``{"unknown"}``, which matches no target, so the turn is
    treated as foreign (its opaque data cannot be vouched for).
    """
    found: list[frozenset[Api]] = []
    for block in message.content:
        if isinstance(block, ToolCall):
            apis = _call_evidence(block)
        elif isinstance(block, ThinkingContent) and block.origin == "reasoning_items":
            apis = frozenset({"openai-responses"})
        elif isinstance(block, ThinkingContent) and (block.redacted or block.signature):
            apis = _ANTHROPIC_LIKE | {"gemini"} if not block.redacted else _ANTHROPIC_LIKE
        elif isinstance(block, TextContent) and _gemini_signature(block.text_signature):
            apis = frozenset({"gemini"})
        else:
            continue
        if apis:
            found.append(apis)
    if not found:
        return frozenset()
    common = frozenset.intersection(*found)
    return common or frozenset({"unknown"})


def is_replayable(message: AssistantMessage, target: TargetModel, policy: Policy) -> bool:
    """May this turn's signatures, redacted thinking and ids go to ``target`` as they are?"""
    if message.api is not None and message.model is not None:
        return target.is_same_model(message.provider, message.api, message.model)
    if policy.unknown_provenance != "match_evidence":
        return policy.unknown_provenance == "same"
    evidence = evidence_apis(message)
    return not evidence or target.api in evidence


def attribute_source(message: AssistantMessage, source: TargetModel | None) -> AssistantMessage:
    """Give an unattributed assistant turn the caller's declared source model."""
    if source is None or message.stamped or message.model is not None:
        return message
    return rebuilt(message, provider=source.provider, api=source.api, model=source.model_id)
