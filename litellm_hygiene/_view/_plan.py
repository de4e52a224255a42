"""What LiteLLM does with tool-call ids and signatures for one target (:class:`WirePlan`).

Resolved once per target and handed to the rules in their context, so no rule asks
which provider it serves: the id LiteLLM sends, the key it pairs a result with its call
by, and the id a result carries to answer its call. LiteLLM keeps a Gemini thought
signature inside the id (``call_<id>__thought__<signature>``, see ``_wire._ids``) and
strips it for every model it does not consider Gemini; its Gemini converter sends the
bare id but pairs results with calls by the whole string; a non-Gemini route to a Gemini
model (OpenRouter's ``google/gemini-...``) gets the whole string as the id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._target import TargetModel
from .._wire._ids import THOUGHT_SEPARATOR
from .._wire._ids import bare_id as _bare_id
from .._wire._ids import join_id as _join_id
from .._wire._ids import result_fields as _result_fields
from .._wire._ids import split_id as _split_id

__all__ = ["Call", "WirePlan", "wire_plan"]


Call = tuple[str, str, str]
"""A call as LiteLLM sends it: (pairing key, id as sent, id as given). Legacy
``function_call`` pairs by name: key ``"\\0function:<name>"``, no id."""


@dataclass(frozen=True, slots=True)
class WirePlan:
    """What LiteLLM does with ids and signatures for one target, resolved once.

    Attributes:
        gemini_model: LiteLLM treats the target as Gemini (``_is_gemini_model``): it
            keeps ``__thought__`` signatures in ids, and the model checks thought
            signatures as base64.
        whole_id_sent: The provider receives the whole ``<id>__thought__<signature>``
            string as the id (a Gemini model behind a non-Gemini protocol).
        pairs_whole_id: LiteLLM pairs a result with its call by the whole string (its
            Gemini converter compares them byte for byte); elsewhere both are stripped.
        sends_message_keys: A key the provider does not know may reach it: LiteLLM
            sends each message's keys as they are (OpenAI Chat and its compatibles,
            Mistral, and the OpenAI-compatible routes behind Vertex AI and Bedrock), or
            the route is not one known to build the provider's messages from the keys
            LiteLLM knows (see :func:`_rebuilt`).
    """

    gemini_model: bool
    whole_id_sent: bool
    pairs_whole_id: bool
    sends_message_keys: bool

    def call(self, raw: str, cut: int) -> Call:
        """A tool-call id as LiteLLM uses it: (pairing key, id as sent, id as given).

        ``cut`` is where ``raw`` holds the ``__thought__`` separator (``raw.find``), or
        -1: the readers find it once, and also flag the signature by it.
        """
        if cut < 0:
            return (raw, raw, raw)
        bare = raw[:cut]
        return (raw if self.pairs_whole_id else bare, raw if self.whole_id_sent else bare, raw)

    def pairing_key(self, raw: str) -> str:
        """The key LiteLLM pairs results with calls by."""
        return self.call(raw, raw.find(THOUGHT_SEPARATOR))[0]

    def answer_id(self, given: str, tool: bool) -> str:
        """The id a result carries to answer the call whose id is ``given``.

        LiteLLM reads a ``tool`` result's id as it reads its call's (a signature dropped
        where the call's is), so it carries the call's id as given; it pairs a legacy
        ``function`` result's ``tool_call_id`` as it is, so that one carries the key.
        """
        return given if tool else self.pairing_key(given)

    @staticmethod
    def split_id(raw: str) -> tuple[str, str | None]:
        """An id and the signature LiteLLM carries inside it (``_wire._ids``)."""
        return _split_id(raw)

    @staticmethod
    def bare_id(raw: str) -> str:
        """An id without the signature LiteLLM carries inside it (``_wire._ids``)."""
        return _bare_id(raw)

    @staticmethod
    def result_fields(raw: str) -> dict[str, Any]:
        """A result's id as the neutral model holds it (``_wire._ids``)."""
        return _result_fields(raw)

    @staticmethod
    def join_id(call_id: str, signature: str | None, in_id: bool) -> str:
        """An id with its signature put back where it travelled (``_wire._ids``)."""
        return _join_id(call_id, signature, in_id)


def wire_plan(target: TargetModel) -> WirePlan:
    """The :class:`WirePlan` of ``target``.

    Mirrors ``litellm.utils._is_gemini_model``: the Gemini providers (Vertex AI only for
    model names that say ``gemini``), or any route whose model name says ``gemini``.
    """
    model = target.model_id.lower()
    if target.provider in ("vertex_ai", "vertex_ai_beta"):
        gemini = "gemini" in model
    else:
        gemini = target.provider == "gemini" or "gemini" in model
    native = gemini and target.api == "gemini"
    return WirePlan(
        gemini_model=gemini,
        whole_id_sent=gemini and not native,
        pairs_whole_id=gemini,
        sends_message_keys=not _rebuilt(target, native),
    )


def _rebuilt(target: TargetModel, native_gemini: bool) -> bool:
    """LiteLLM builds each provider message from the keys it knows: no other key leaves.

    Anthropic Messages (Anthropic, Claude on Vertex AI, Bedrock's invoke route),
    Responses (OpenAI, Azure), a Gemini model on Google's own API (AI Studio, Vertex
    AI), and Claude through Bedrock's Converse. Not the other models behind Vertex AI
    and Bedrock, which hygiene reads as Gemini or Converse but LiteLLM serves through
    OpenAI-compatible endpoints that send message dicts as they are (Llama or Mistral
    on Vertex AI; ``bedrock/chat_completions/...``, ``bedrock/openai/...``, OpenAI models
    on Bedrock). ``tests/shapes/test_wire_keys.py`` sends an unknown key through each of these
    routes and reads the body.
    """
    if target.api in ("anthropic-messages", "openai-responses"):
        return True
    if target.api == "gemini":
        return native_gemini
    if target.api == "bedrock-converse":
        model = target.model_id.lower()
        return "claude" in model and "/" not in model
    return False
