"""What the pipeline rewrites although the validator lets it pass.

The validator reports what a provider (through LiteLLM) would reject; the pipeline also
tidies what LiteLLM copes with. Where they differ, a request the validator finds clean
is still sent as it is (LiteLLM copes), but a request the validator faults only for its
provenance stamps cannot take the stamps-only shortcut: the pipeline would change more
than the stamps. :func:`rewritten_anyway` names those differences for an assistant
turn, erring towards ``True`` (which only costs the shortcut):

- a turn not vouched replayable by its stamp or the declared source has its thinking,
  its response-only fields and the provider fields of its calls rewritten, even empty
  ones no converter would send;
- a replayable turn loses the provider fields of its calls where the policy strips
  provider fields (the validator checks the message's own keys only);
- where thought signatures must be base64, empty signatures go too (the validator
  reports non-empty ones), and so do redacted thinking and reasoning items whose
  payload is not base64;
- where empty text is rejected, unsigned empty thinking goes from every turn.

Two more live where the scan reads them: a signature in a call id (LiteLLM strips it
for most targets; the pipeline drops it from foreign turns and renames the results) and
empty text beside tool calls (dropped where empty text is rejected).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from ._policy import Policy
from ._provenance import is_canonical_base64

__all__ = ["rewritten_anyway"]

_PSF: Final = "provider_specific_fields"


def rewritten_anyway(policy: Policy, msg: dict[str, Any], calls: Any, verdict: bool | None) -> bool:
    """The pipeline may rewrite this assistant turn although the validator passes it.

    Args:
        policy: The target's policy.
        msg: An assistant turn with thinking, content parts, response-only fields or
            provider fields on its calls, whose calls the validator reads as well-formed.
        calls: Its ``tool_calls`` (``None`` when absent).
        verdict: Its replayability from the stamp or the declared source alone
            (``None``: it would be judged from evidence).
    """
    if verdict is not True:
        return True
    calls = calls or ()
    if _PSF in policy.strip_fields and any(_PSF in c or _PSF in c["function"] for c in calls):
        return True
    if policy.require_base64_thought_signatures and not _signatures_canonical(msg, calls):
        return True
    if not policy.reject_empty_text:
        return False
    if "reasoning_items" in msg or isinstance(msg.get("content"), list):
        return True
    if "reasoning_content" in msg:
        reasoning = msg["reasoning_content"]
        if not isinstance(reasoning, str) or _blank(reasoning):
            return True
    blocks = msg.get("thinking_blocks", ())
    if not isinstance(blocks, list | tuple):
        return True
    return not all(_kept_thinking(entry) for entry in blocks)


def _blank(text: Any) -> bool:
    return isinstance(text, str) and (not text or text.isspace())


def _kept_thinking(entry: Any) -> bool:
    """A thinking entry a replayable turn keeps where empty text is rejected.

    Unsigned empty thinking is dropped there; signed or readable thinking stays.
    """
    if not isinstance(entry, dict):
        return False
    if entry.get("type") == "redacted_thinking":
        return isinstance(entry.get("data"), str)
    thinking = entry.get("thinking")
    return (
        entry.get("type") == "thinking"
        and isinstance(thinking, str)
        and (not _blank(thinking) or isinstance(entry.get("signature"), str))
    )


def _canonical_or_absent(container: Any, key: str) -> bool:
    value = container.get(key) if isinstance(container, dict) else None
    return not isinstance(value, str) or is_canonical_base64(value)


def _signatures_canonical(msg: dict[str, Any], calls: Sequence[Any]) -> bool:
    """Every signature a same-model turn carries is canonical base64 (none empty)."""
    if "reasoning_items" in msg:
        return False
    for entries in (msg.get("thinking_blocks"), msg.get("content")):
        for entry in entries if isinstance(entries, list) else ():
            kind = entry.get("type") if isinstance(entry, dict) else None
            if kind == "thinking" and not _canonical_or_absent(entry, "signature"):
                return False
            if kind == "redacted_thinking" and not _canonical_or_absent(entry, "data"):
                return False
    for call in calls:
        for container in (call, call["function"]):
            if not _canonical_or_absent(container.get(_PSF), "thought_signature"):
                return False
    psf = msg.get(_PSF)
    signatures = psf.get("thought_signatures") if isinstance(psf, dict) else None
    return not isinstance(signatures, list) or all(
        isinstance(value, str) and is_canonical_base64(value) for value in signatures
    )
