"""The transformation pipeline: the passes, in order, and why the order matters.

0. ``attribute_provenance`` pins which model produced each assistant turn while the
   evidence (raw ids, signatures, thinking) is still untouched: later passes rewrite it.
1. ``normalize_input`` fills null content, so no later pass has to consider it.
2. ``drop_failed_turns`` removes error/aborted turns and their results before pairing is
   repaired (otherwise their results would be kept as answers or dropped as orphans
   without saying why) and before ids are renamed.
3. ``downgrade_unsupported_images`` replaces images for text-only targets before any
   image is decoded, so no work is spent re-encoding images that will not be sent.
4. ``sanitize_image_payloads`` fixes what remains: invalid, oversize, bomb images.
5. ``reconcile_assistant_history`` turns foreign thinking into text and drops foreign
   signatures and response-only fields, using step 0's verdict.
5b. ``drop_empty_content`` removes empty text and empty turns for targets that reject
   them; it runs after step 5, which can empty a turn or add text beside an empty block,
   and before pairing and turn order look at the turns.
6. ``repair_tool_result_pairing`` moves, deduplicates, drops and synthesizes results
   while the original ids still tell which result answers which call.
7. ``normalize_tool_call_ids`` renames ids the target rejects; after step 6 every
   result sits right after its call, so each turn's results map to its calls in order.
8. ``validate_turn_order`` merges same-role turns and prepends a user turn last,
   because steps 1, 2 and 6 can create or remove the turns it looks at.
9. ``strip_hygiene_stamps`` removes the provenance stamp: it never reaches a provider.

Every pass is pure and returns its input object when it changed nothing, so a request
that needs nothing costs one scan per pass and no copies.
"""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, ConfigDict

from ._build import rebuilt, trusted
from ._messages import Context
from ._passes._attribute import attribute_provenance
from ._passes._base import Change, Messages, Pass, PassContext, PassResult
from ._passes._failed import drop_failed_turns
from ._passes._images import downgrade_unsupported_images, sanitize_image_payloads
from ._passes._normalize import drop_empty_content, normalize_input
from ._passes._pairing import repair_tool_result_pairing
from ._passes._reconcile import reconcile_assistant_history
from ._passes._stamps import strip_hygiene_stamps
from ._passes._tool_ids import normalize_tool_call_ids
from ._passes._turns import validate_turn_order
from ._policy import Policy, policy_for
from ._target import TargetModel

__all__ = ["PIPELINE", "TransformReport", "TransformResult", "transform_messages"]

PIPELINE: tuple[tuple[str, Pass], ...] = (
    ("normalize_input", normalize_input),
    ("drop_failed_turns", drop_failed_turns),
    ("downgrade_unsupported_images", downgrade_unsupported_images),
    ("sanitize_image_payloads", sanitize_image_payloads),
    ("reconcile_assistant_history", reconcile_assistant_history),
    ("drop_empty_content", drop_empty_content),
    ("repair_tool_result_pairing", repair_tool_result_pairing),
    ("normalize_tool_call_ids", normalize_tool_call_ids),
    ("validate_turn_order", validate_turn_order),
    ("strip_hygiene_stamps", strip_hygiene_stamps),
)
"""Steps 1-9 of the pipeline (step 0 takes the declared source model as well)."""


class TransformReport(BaseModel):
    """What the pipeline changed, without message content.

    Attributes:
        changes: Every change, in the order the passes made them.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    changes: tuple[Change, ...] = ()

    def counts(self) -> dict[str, int]:
        """Number of changes per kind (``tool_call_id_renamed``: 3, ...)."""
        return dict(Counter(c.kind for c in self.changes))

    @property
    def changed(self) -> bool:
        """Whether anything besides provenance attribution changed."""
        return any(c.step != "attribute_provenance" for c in self.changes)


class TransformResult(BaseModel):
    """The transformed context and the report of what changed."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    context: Context
    report: TransformReport


def run_passes(
    messages: Messages, ctx: PassContext, source: TargetModel | None = None
) -> PassResult:
    """Run step 0 and then the steps of :data:`PIPELINE`, in order."""
    current, changes = attribute_provenance(messages, ctx, source)
    for _, step in PIPELINE:
        current, made = step(current, ctx)
        changes.extend(made)
    return current, changes


def transform_messages(
    context: Context,
    target: TargetModel,
    *,
    policy: Policy | None = None,
    source: TargetModel | None = None,
) -> TransformResult:
    """Transform a neutral context for ``target``.

    Args:
        context: The conversation; never mutated.
        target: The resolved model the request goes to (see ``resolve_target``).
        policy: Override the target family's policy.
        source: The model that produced assistant turns without provenance.

    Returns:
        The new context (the same object when nothing changed) and a report.
    """
    ctx = PassContext(target=target, policy=policy or policy_for(target))
    messages, changes = run_passes(context.messages, ctx, source)
    report = trusted(TransformReport, changes=tuple(changes))
    if not report.changed:
        return trusted(TransformResult, context=context, report=report)
    return trusted(TransformResult, context=rebuilt(context, messages=messages), report=report)
