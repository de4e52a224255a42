"""The closed vocabulary of what hygiene finds and changes.

Every rule has one code; it names the rule's :class:`~litellm_hygiene._rules._findings.Change`
records and its :class:`~litellm_hygiene.Violation` records alike. Two more codes are
the validator's own: input it cannot read.

=======================  =====================================================================
code                     the constraint
=======================  =====================================================================
null_content             only an assistant message may have ``null`` content (OpenAI:
                         ``expected a string, got null``); filled with ``""``
failed_turn              an assistant turn that ended in ``error`` or ``aborted`` is dropped,
                         with the results answering its calls
image_unsupported        a target known not to take images gets placeholder text instead
image_payload            inline images the target cannot take (invalid base64, unreadable,
                         over a size or side limit) are re-encoded or replaced
foreign_reasoning        thinking, redacted thinking and signatures are valid only for the
                         model that produced them: readable thinking becomes text, the rest
                         is dropped
response_only_field      LiteLLM's response-only fields are removed where the target
                         rejects or misreads them
non_base64_signature     Google decodes thought signatures as base64: others are dropped
missing_reasoning        DeepSeek and Kimi in thinking mode get ``reasoning_content`` on every
                         assistant turn with tool calls
lone_reasoning           a Responses reasoning item with no text or call after it is dropped
tool_arguments           arguments that are not a JSON object are sent as their best-effort
                         decoded object where LiteLLM's converter parses them
empty_content            empty or whitespace-only text (and empty turns) where the target
                         rejects it
tool_pairing             every tool call has exactly one result, right after its turn
tool_call_id             tool-call ids in the shape the target accepts, unique in a turn
turn_order               turns in the order Mistral serves: no user turn right after a tool
                         result, no system message after the first turn, no assistant turn
                         last (unless a prefix)
system_placement         a system message inside the conversation where the target's API
                         takes it (Claude from Opus 4.8: right after a user turn), else a
                         user note at its place
consecutive_turns        two user or two assistant turns in a row are merged where the
                         target requires alternation
assistant_first          a minimal user turn goes first where the target requires one
thinking_tool_loop       Claude with thinking on: the last assistant turn of an unfinished
                         tool loop must start with its own signed thinking, else the request
                         goes without thinking
hygiene_stamp            litellm_hygiene's provenance stamp never reaches a provider
malformed_message        (validator) a message LiteLLM cannot convert
malformed_request        (validator) ``messages`` is not a list
=======================  =====================================================================
"""

from __future__ import annotations

from typing import Final, Literal, get_args

__all__ = ["CODES", "Code", "ViolationCode"]

Code = Literal[
    "null_content",
    "failed_turn",
    "image_unsupported",
    "image_payload",
    "foreign_reasoning",
    "response_only_field",
    "non_base64_signature",
    "missing_reasoning",
    "lone_reasoning",
    "tool_arguments",
    "empty_content",
    "tool_pairing",
    "tool_call_id",
    "turn_order",
    "system_placement",
    "consecutive_turns",
    "assistant_first",
    "thinking_tool_loop",
    "hygiene_stamp",
]
"""A rule's code: the kind of every change it makes and every violation it reports."""

ViolationCode = Literal[Code, "malformed_message", "malformed_request"]
"""What a violation can be: a rule's code, or input the validator cannot read."""

CODES: Final[tuple[Code, ...]] = get_args(Code)
"""Every rule code, in pipeline order."""
