"""The stand-in as a strict provider: a request the real API would refuse gets its error.

:mod:`.rules` says what each API rejects in a request body; this module answers such a
request the way the provider does, with HTTP 400 in the provider's own error envelope
(Anthropic's ``{"type": "error", ...}``, OpenAI's ``{"error": {...}}``, Mistral's
``{"object": "error", ...}``, Google's ``{"error": {"status": "INVALID_ARGUMENT"}}``,
Bedrock's ``{"message": ...}`` with ``x-amzn-errortype``), so LiteLLM maps it to the same
exception class a user would see. Like a real API it reports the first problem, in the
provider's own sentence where one is known (:data:`WORDING`), else in the check's words.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import unquote

from . import anthropic, openai_chat
from ._reply import Json, Reply, Route
from ._server import ReceivedRequest
from .rules import ProblemKind, WireApi, WireProblem, problems

__all__ = [
    "ROUTE_OF_API",
    "WORDING",
    "judge",
    "model_of",
    "provider_message",
    "rejection",
    "strict",
]

ROUTE_OF_API: dict[WireApi, Route] = {
    "anthropic-messages": "anthropic-messages",
    "bedrock-converse": "bedrock",
    "gemini": "gemini",
    "openai-chat": "chat-completions",
    "mistral": "chat-completions",
    "openai-responses": "responses",
}
"""The endpoint each wire API is served on."""


_ANTHROPIC_UNANSWERED = (
    "messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately "
    "after: {subject}. Each `tool_use` block must have a corresponding `tool_result` block "
    "in the next message."
)
_ANTHROPIC_ORPHAN = (
    "messages.{index}.content.{part}: unexpected `tool_use_id` found in `tool_result` "
    "blocks: {subject}. Each `tool_result` block must have a corresponding `tool_use` "
    "block in the previous message."
)
_OPENAI_UNANSWERED = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding "
    "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
    "{subject}"
)
_OPENAI_ORPHAN = (
    "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'"
)
_THINKING_FIRST = (
    "messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
    "`{subject}`. When `thinking` is enabled, a final `assistant` message must start with a "
    "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We "
    "recommend you include thinking blocks from previous turns. To avoid this requirement, "
    "disable `thinking`. Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
)
_EXTRA = "Extra inputs are not permitted, field: 'messages[{index}].{subject}'"

WORDING: dict[tuple[WireApi, ProblemKind], str] = {
    ("anthropic-messages", "tool_id"): (
        "messages.{index}.content.{part}.tool_use.id: String should match pattern "
        "'^[a-zA-Z0-9_-]+$'"
    ),
    ("anthropic-messages", "unanswered_call"): _ANTHROPIC_UNANSWERED,
    ("anthropic-messages", "orphan_result"): _ANTHROPIC_ORPHAN,
    ("anthropic-messages", "thinking_first"): _THINKING_FIRST,
    (
        "anthropic-messages",
        "system_role",
    ): "messages.{index}.role: Input should be 'user' or 'assistant'",
    ("anthropic-messages", "system_first"): (
        "messages.0: use the top-level 'system' parameter for the initial system prompt"
    ),
    ("anthropic-messages", "system_placement"): (
        "messages.{index}: a `system` message must immediately follow a `user` message"
    ),
    ("bedrock-converse", "tool_id"): (
        "Value at 'messages.{index}.member.content.{part}.member.toolUse.toolUseId' failed "
        "to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+"
    ),
    ("bedrock-converse", "unanswered_call"): (
        "Expected toolResult blocks at messages.{next}.content for the following Ids: {subject}"
    ),
    ("bedrock-converse", "thinking_first"): "The model returned the following errors: "
    + _THINKING_FIRST,
    ("bedrock-converse", "orphan_result"): (
        "The number of toolResult blocks at messages.{index}.content exceeds the number of "
        "toolUse blocks of previous turn."
    ),
    ("openai-chat", "unanswered_call"): _OPENAI_UNANSWERED,
    ("openai-chat", "orphan_result"): _OPENAI_ORPHAN,
    ("openai-chat", "response_only"): _EXTRA,
    ("mistral", "tool_id"): (
        "Tool call id was {subject} but must be a-z, A-Z, 0-9, with a length of 9."
    ),
    ("mistral", "unanswered_call"): "Not the same number of function calls and responses",
    ("mistral", "orphan_result"): "Not the same number of function calls and responses",
    ("mistral", "response_only"): _EXTRA,
    ("gemini", "unanswered_call"): (
        "Please ensure that the number of function response parts is equal to the number "
        "of function call parts of the function call turn."
    ),
    ("gemini", "orphan_result"): (
        "Please ensure that function response turn comes immediately after a function call turn."
    ),
    ("openai-responses", "unanswered_call"): "No tool output found for function call {subject}.",
    ("openai-responses", "orphan_result"): (
        "No tool call found for function call output with call_id {subject}."
    ),
    ("openai-responses", "id_too_long"): (
        "Invalid 'input[{index}].{subject_key}': string too long. Expected a string with "
        "maximum length 64, but got a string with length {subject_length} instead."
    ),
    ("openai-responses", "id_prefix"): (
        "Invalid 'input[{index}].id': '{subject}'. Expected an ID that begins with 'fc'."
    ),
    ("openai-responses", "unknown_key"): "Unknown parameter: 'input[{index}].{subject}'.",
    ("openai-responses", "lone_reasoning"): (
        "Item '{subject}' of type 'reasoning' was provided without its required following item."
    ),
}
"""Each provider's sentence for a broken rule, with the problem's ``index`` (``next``:
the message after it), ``part`` and ``subject`` filled in (``subject_key`` and
``subject_length``: a ``key:length`` subject's two halves). The sentences are the ones
PROVIDER_RULES.md and public issue threads record, the same the validator quotes in
``Violation.provider_error``; kept here too because the stand-in judges requests
independently of hygiene's rules. A pair missing here (Mistral's turn order, whose check
already speaks Mistral's words) is answered in the check's own words."""


def provider_message(api: WireApi, problem: WireProblem) -> str:
    """What ``api`` says of ``problem``: its own sentence when known, else the check's."""
    template = WORDING.get((api, problem.kind))
    if template is None:
        return problem.text
    after = problem.index + 1 if problem.index is not None else None
    key, _, length = problem.subject.partition(":")
    return template.format(
        index=problem.index,
        next=after,
        part=problem.part,
        subject=problem.subject,
        subject_key=key,
        subject_length=length,
    )


def rejection(api: WireApi, found: list[WireProblem]) -> Reply:
    """The 400 ``api`` answers a request whose first problem is ``found[0]``."""
    text = provider_message(api, found[0])
    route = ROUTE_OF_API[api]
    if api == "anthropic-messages":
        return anthropic.error(400, "invalid_request_error", text, seed=text)
    if api == "bedrock-converse":
        errortype = "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"
        return Reply(
            route=route, status=400, body={"message": text}, headers={"x-amzn-errortype": errortype}
        )
    if api == "gemini":
        body: Json = {"error": {"code": 400, "message": text, "status": "INVALID_ARGUMENT"}}
        return Reply(route=route, status=400, body=body)
    if api == "mistral":
        body = {  # Mistral's own envelope, not OpenAI's
            "object": "error",
            "message": text,
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        }
        return Reply(route=route, status=400, body=body)
    reply = openai_chat.error(400, text, "invalid_request_error")
    return Reply(route=route, status=400, body=reply.body)


_NO_BODY = WireProblem("no_body", "the request has no JSON body")


_MODEL_IN_PATH = re.compile(r"/model/([^/]+)/|/models/([^/:]+):")
"""The model a path names: Bedrock's ``/model/{id}/...``, Gemini's ``/models/{model}:...``."""


def model_of(request: ReceivedRequest) -> str:
    """The model ``request`` asks for: its body's ``model``, else the one its path names."""
    body = request.body if isinstance(request.body, dict) else {}
    if body.get("model"):
        return str(body["model"])
    found = _MODEL_IN_PATH.search(request.path.split("?", 1)[0])
    return unquote(found.group(1) or found.group(2)) if found else ""


def judge(api: WireApi, request: ReceivedRequest) -> list[WireProblem]:
    """What the real ``api`` would reject in ``request`` (nothing when it is valid)."""
    body = request.body
    return problems(api, body, model_of(request)) if isinstance(body, dict) else [_NO_BODY]


def strict(api: WireApi, accept: Reply) -> Callable[[ReceivedRequest], Reply]:
    """A responder for :class:`.StandIn`: ``accept`` for a valid body, else the error."""

    def respond(request: ReceivedRequest) -> Reply:
        found = judge(api, request)
        return rejection(api, found) if found else accept

    return respond
