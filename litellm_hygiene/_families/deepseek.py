"""DeepSeek's chat API, wherever DeepSeek's models are served OpenAI-compatibly.

``deepseek/...`` (api.deepseek.com), and DeepSeek's models behind OpenRouter, Together,
Fireworks and other OpenAI-compatible routes. (Its Anthropic-compatible endpoint speaks
Anthropic's protocol: that family's.) What sets it apart from other OpenAI-compatible
providers, each checked against DeepSeek's API docs, LiteLLM's source and real errors:

- **Thinking by default, and its reasoning back on tool-call turns.** DeepSeek V4
  thinks unless asked not to, and a turn that made tool calls must carry its
  ``reasoning_content`` in every later request: ``The `reasoning_content` in the thinking
  mode must be passed back to the API.`` (api-docs.deepseek.com/guides/thinking_mode;
  LiteLLM #37636: LiteLLM fills it only when ``thinking`` is passed explicitly). Other
  providers' turns get the least DeepSeek accepts (``missing_reasoning``).
- **Tool-call ids unique in the whole request**: ``Duplicate value for 'tool_call_id' of
  <id> in message[2]``, also for two calls of one turn sharing an id and for empty ids.
  It documents no length or character limit; the OpenAI-compatible 40 characters of
  ``[a-zA-Z0-9_-]`` stay as the cautious default.
- **Unknown message keys are ignored**, not rejected (a live probe: an unknown key alone
  gives no error): no wording for them. LiteLLM forwards its response-only fields to
  DeepSeek verbatim; they are still removed, as nothing reads them there.
"""

from __future__ import annotations

from .._messages import Api
from .._policy import ALL_RESPONSE_FIELDS, IdRule, Policy
from .._target import TargetModel
from ._profile import CHAT_PATHS, SAFE_IDS, Layout, Profile

__all__ = ["PROFILE", "thinks"]

_THINKING_MARKERS = ("reasoner", "-r1", "/r1", "v4", "flash", "thinking")
"""Model ids that think by default: ``deepseek-reasoner``, R1, V4 (``deepseek-v4-pro``,
``deepseek-v4-flash``), ``deepseek-flash``, ``-thinking`` variants. ``deepseek-chat`` is
V4 Flash with thinking off."""


def thinks(target: TargetModel) -> bool:
    """The DeepSeek model thinks by default (or LiteLLM's model map says it reasons)."""
    model = target.model_id.lower()
    return any(m in model for m in _THINKING_MARKERS) or bool(target.capabilities.reasoning)


def _claims(api: Api, model_id: str) -> bool:
    """A DeepSeek model on any OpenAI-compatible route is DeepSeek's."""
    return api == "openai-compatible" and "deepseek" in model_id.lower()


def _thinking(target: TargetModel) -> Policy | None:
    return _THINKING if thinks(target) else None


PROFILE = Profile(
    family="deepseek",
    policy=Policy(
        family="deepseek",
        tool_ids=IdRule(allowed=SAFE_IDS, max_length=40, unique_in_request=True),
        strip_fields=ALL_RESPONSE_FIELDS,
        # Its Anthropic endpoint (``/v1/messages`` sent as it is): ``messages[7].role:
        # unknown variant `system`, expected `user` or `assistant```.
        inline_system="none",
    ),
    paths=CHAT_PATHS,
    layout=Layout("one_to_one"),
    extra_field=None,
    claims=_claims,
    variant=_thinking,
    wording={
        "missing_reasoning": {
            "missing_reasoning": (
                "The `reasoning_content` in the thinking mode must be passed back to the API."
            ),
        },
        "tool_pairing": {
            "call_without_result": (
                "An assistant message with 'tool_calls' must be followed by tool messages "
                "responding to each 'tool_call_id'. (insufficient tool messages following "
                "tool_calls message)"
            ),
            "result_without_call": (
                "Messages with role 'tool' must be a response to a preceding message with "
                "'tool_calls'"
            ),
            "duplicate_result": "Duplicate value for 'tool_call_id' of {id} in message[{i}]",
        },
        "tool_call_id": {
            "id_collision": "Duplicate value for 'tool_call_id' of {id} in message[{i}]",
        },
    },
)

_THINKING = PROFILE.policy.model_copy(
    update={
        "reasoning_on_calls": True,
        "strip_fields": frozenset(
            {"thinking_blocks", "provider_specific_fields", "reasoning_items"}
        ),
        "strip_foreign_fields": ALL_RESPONSE_FIELDS - {"reasoning_content"},
    }
)
"""DeepSeek thinking: ``reasoning_content`` is required on tool-call turns, so it is kept
(another model's readable thinking goes there too, rather than into the text)."""
