"""The rules: one module per provider constraint, applied in this order.

1. ``null_content`` fills ``null`` content first, so no later rule considers it.
2. ``failed_turn`` drops error/aborted turns and their results before pairing is
   repaired (their results would otherwise be kept as answers, or dropped as orphans
   without saying why) and before ids are renamed.
3. ``image_unsupported`` replaces images for text-only targets before any image is
   decoded, so nothing is re-encoded that will not be sent.
4. ``image_payload`` fixes the images that remain: invalid, oversize, bombs.
5. ``foreign_reasoning`` turns another model's thinking into text and drops its
   signatures, using provenance judged on the turns as the caller sent them.
6. ``response_only_field`` removes LiteLLM's response-only fields the target rejects;
   after step 5, which has already turned foreign thinking into text.
7. ``non_base64_signature`` drops the signatures left on same-model turns that Google
   cannot decode.
8. ``missing_reasoning`` gives tool-call turns the ``reasoning_content`` DeepSeek and
   Kimi in thinking mode require; after step 5 has moved foreign thinking there.
9. ``lone_reasoning`` drops Responses reasoning items nothing follows; after steps 5-7,
   which decide what reasoning a turn keeps.
10. ``tool_arguments`` sends arguments that are not a JSON object as their decoded
   object where LiteLLM's converter parses them.
11. ``empty_content`` drops empty text and empty turns; after steps 5-7, which can empty
   a turn, and before pairing and turn order look at the turns.
12. ``tool_pairing`` moves, deduplicates, drops and synthesizes results while the
   original ids still tell which result answers which call.
13. ``tool_call_id`` renames ids the target rejects; after step 12 every result sits
    right after its call, so each turn's results map to its calls.
14. ``turn_order`` puts turns in the order Mistral serves (system messages to the start,
    an assistant turn between results and a user turn, a last assistant turn a prefix);
    after step 12 has put every result after its call, and before merging, which it can
    make necessary by moving system messages away from between two user turns.
15. ``system_placement`` keeps a system message inside the conversation where the
    target's API takes it, and moves or rewrites it as a user note elsewhere; after step
    12 has put every result after its call (it judges what a system message follows),
    and before merging, which joins its notes with the user turns beside them.
16. ``consecutive_turns`` merges same-role turns, and 17. ``assistant_first`` puts a user
    turn first, last among the turn rules: steps 2, 9, 11, 12, 14 and 15 create and remove
    turns.
18. ``thinking_tool_loop`` sends Claude a request without thinking when the last turn of
    an unfinished tool loop cannot start with Claude's own signed thinking; after every
    rule that changes turns or their thinking, so it judges that turn as it is sent. The
    only rule that fixes the request's parameters rather than its messages.
19. ``hygiene_stamp`` removes the provenance stamp wherever LiteLLM could send it on (it
    never reaches a provider; elsewhere LiteLLM leaves it behind).

Each rule finds nothing in its own output, and no later rule breaks what an earlier one
fixed, so the pipeline's output is a fixed point: run again, it changes nothing.
"""

from __future__ import annotations

from typing import Final

from .._view import Wire
from ._codes import CODES, Code, ViolationCode
from ._conversation import Conversation, RuleContext, Slot
from ._findings import Change, Finding, Problem
from ._rule import Rule
from .assistant_first import AssistantFirst
from .consecutive_turns import ConsecutiveTurns
from .empty_content import EmptyContent
from .failed_turn import FailedTurn
from .foreign_reasoning import ForeignReasoning
from .hygiene_stamp import HygieneStamp
from .image_payload import ImagePayload
from .image_unsupported import ImageUnsupported
from .lone_reasoning import LoneReasoning
from .missing_reasoning import MissingReasoning
from .non_base64_signature import NonBase64Signature
from .null_content import NullContent
from .response_only_field import ResponseOnlyField
from .system_placement import SystemPlacement
from .thinking_tool_loop import ThinkingToolLoop
from .tool_arguments import ToolArguments
from .tool_call_id import ToolCallId
from .tool_pairing import ToolPairing
from .turn_order import TurnOrder

__all__ = [
    "CODES",
    "REQUEST_PARAMS",
    "RULES",
    "Change",
    "Code",
    "Conversation",
    "Finding",
    "Problem",
    "Rule",
    "RuleContext",
    "Slot",
    "ViolationCode",
    "Wire",
]

RULES: Final[tuple[Rule, ...]] = (
    NullContent(),
    FailedTurn(),
    ImageUnsupported(),
    ImagePayload(),
    ForeignReasoning(),
    ResponseOnlyField(),
    NonBase64Signature(),
    MissingReasoning(),
    LoneReasoning(),
    ToolArguments(),
    EmptyContent(),
    ToolPairing(),
    ToolCallId(),
    TurnOrder(),
    SystemPlacement(),
    ConsecutiveTurns(),
    AssistantFirst(),
    ThinkingToolLoop(),
    HygieneStamp(),
)
"""Every rule, in pipeline order (the module docstring says why)."""

assert tuple(rule.code for rule in RULES) == CODES, "RULES and CODES list the rules alike"

REQUEST_PARAMS: Final[tuple[str, ...]] = tuple(
    dict.fromkeys(name for rule in RULES for name in rule.params)
)
"""Every request parameter some rule reads (``Rule.params``): what the callers of the
rules take from a request besides its messages."""
