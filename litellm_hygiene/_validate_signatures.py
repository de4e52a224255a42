"""Provenance rules: signatures, response-only fields and the hygiene stamp.

Opaque provider data (thinking signatures, redacted thinking, encrypted reasoning,
Gemini thought signatures) is valid only for the model that produced it, so it is a
violation in any assistant turn that is not replayable to the target.

Whether a turn is replayable is decided by :func:`~litellm_hygiene._provenance.is_replayable`,
the same function the passes use. The dict scan finds the signature sites first; only a
turn that has something to judge is looked at further, and only a turn with neither a
stamp nor a declared source (``Policy.unknown_provenance == "match_evidence"``) is
decoded into the neutral model, because evidence lives in its content.

Response-only fields: LiteLLM forwards an assistant message's keys verbatim to
OpenAI-shaped providers, ``None`` values included, so a key in ``Policy.strip_fields``
counts whatever its value. For ``Policy.strip_foreign_fields`` only a non-empty value
counts: the converters of the other protocols read these keys and skip empty ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ._errors import InvalidMessageError
from ._messages import Api, AssistantMessage
from ._openai import STAMP_KEY, decode_message
from ._openai._decode import decode_stamp
from ._openai._tools import THOUGHT_SEPARATOR
from ._provenance import attribute_source, is_canonical_base64, is_replayable
from ._validate_report import ErrorKind, Request
from ._validate_violation import Violation, ViolationCode
from ._validate_wire import Msg

__all__ = ["Offences", "check_provenance", "content_free_verdict", "turn_offences"]

SiteKind = Literal["thinking", "redacted", "reasoning_item", "tool_call", "text"]

_FOREIGN: dict[SiteKind, tuple[ViolationCode, ErrorKind]] = {
    "thinking": ("foreign_signature", "foreign_thinking"),
    "redacted": ("foreign_redacted_thinking", "foreign_redacted"),
    "reasoning_item": ("foreign_signature", "foreign_reasoning_item"),
    "tool_call": ("foreign_signature", "foreign_thought_signature"),
    "text": ("foreign_signature", "foreign_thought_signature"),
}
_THOUGHT_SIGNATURE_KINDS = frozenset({"thinking", "tool_call", "text"})
_PSF = "provider_specific_fields"


@dataclass(frozen=True)
class _Site:
    """One place in an assistant message that carries opaque provider data."""

    field: str
    kind: SiteKind
    value: str
    local: int = 0
    item: str = "rs_..."
    call: int | None = None


def _thinking_site(block: Any, where: str, local: int) -> _Site | None:
    if not isinstance(block, dict):
        return None
    if block.get("type") == "thinking" and isinstance(block.get("signature"), str):
        signature = block["signature"]
        return _Site(f"{where}.signature", "thinking", signature, local) if signature else None
    if block.get("type") == "redacted_thinking" and isinstance(block.get("data"), str):
        return _Site(where, "redacted", block["data"], local)
    return None


def _thinking_sites(msg: Msg) -> list[_Site]:
    if "thinking_blocks" not in msg and "reasoning_items" not in msg:
        if not isinstance(msg.get("content"), list):
            return []
    sites: list[_Site | None] = []
    blocks = msg.get("thinking_blocks")
    for k, block in enumerate(blocks if isinstance(blocks, list) else ()):
        sites.append(_thinking_site(block, f"thinking_blocks[{k}]", k))
    content = msg.get("content")
    for k, part in enumerate(content if isinstance(content, list) else ()):
        sites.append(_thinking_site(part, f"content[{k}]", k))
    items = msg.get("reasoning_items")
    for k, item in enumerate(items if isinstance(items, list) else ()):
        encrypted = item.get("encrypted_content") if isinstance(item, dict) else None
        if isinstance(encrypted, str) and encrypted:
            item_id = item.get("id")
            shown = item_id if isinstance(item_id, str) else "rs_..."
            where = f"reasoning_items[{k}].encrypted_content"
            sites.append(_Site(where, "reasoning_item", encrypted, k, shown))
    return [site for site in sites if site is not None]


def _psf_signature(container: Any, where: str, call: int) -> _Site | None:
    psf = container.get(_PSF) if isinstance(container, dict) else None
    value = psf.get("thought_signature") if isinstance(psf, dict) else None
    if isinstance(value, str) and value:
        return _Site(f"{where}{_PSF}.thought_signature", "tool_call", value, call=call)
    return None


def _call_sites(msg: Msg, sends_id_signature: bool) -> list[_Site]:
    calls = msg.get("tool_calls")
    sites: list[_Site | None] = []
    for j, call in enumerate(calls if isinstance(calls, list) else ()):
        if not isinstance(call, dict):
            continue
        raw = call.get("id")
        if sends_id_signature and isinstance(raw, str) and THOUGHT_SEPARATOR in raw:
            signature = raw.partition(THOUGHT_SEPARATOR)[2]
            if signature:
                sites.append(_Site(f"tool_calls[{j}].id", "tool_call", signature, call=j))
        if _PSF in call:
            sites.append(_psf_signature(call, f"tool_calls[{j}].", j))
        function = call.get("function")
        if isinstance(function, dict) and _PSF in function:
            sites.append(_psf_signature(function, f"tool_calls[{j}].function.", j))
    return [site for site in sites if site is not None]


def _text_sites(msg: Msg) -> list[_Site]:
    psf = msg.get(_PSF)
    signatures = psf.get("thought_signatures") if isinstance(psf, dict) else None
    return [
        _Site(f"{_PSF}.thought_signatures[{k}]", "text", value, k)
        for k, value in enumerate(signatures if isinstance(signatures, list) else ())
        if isinstance(value, str) and value
    ]


def _signature_sites(req: Request, msg: Msg) -> list[_Site]:
    return [*_thinking_sites(msg), *_call_sites(msg, req.sends_signature), *_text_sites(msg)]


def _has_value(value: Any) -> bool:
    """Not ``None`` and not empty, looking into containers (``{"refusal": None}`` is empty)."""
    if value is None:
        return False
    if isinstance(value, str):
        return bool(value)
    if isinstance(value, dict):
        return any(_has_value(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_has_value(v) for v in value)
    return True


def _stamp_verdict(req: Request, value: Any) -> bool | None:
    """The verdict a stamp (with the declared source and the policy) gives without content.

    The stamp is read by the decoder's own function, so a malformed stamp is ignored
    exactly as the passes ignore it, and the turn then takes the declared source (as
    :func:`~litellm_hygiene._provenance.attribute_source` gives it). ``None``: the
    verdict needs the evidence in the content.
    """
    stamp = decode_stamp(value)
    if stamp is not None:
        return _verdict(req, stamp["provider"], stamp["api"], stamp["model"])
    return _unstamped_verdict(req)


def _verdict(req: Request, provider: str | None, api: Api | None, model: str | None) -> bool | None:
    """:func:`~litellm_hygiene._provenance.is_replayable` for known provenance fields."""
    if api is not None and model is not None:
        return req.same_model(provider, api, model)
    if req.policy.unknown_provenance != "match_evidence":
        return req.policy.unknown_provenance == "same"
    return None


def _unstamped_verdict(req: Request) -> bool | None:
    """The verdict for every unstamped turn, when it does not depend on content."""
    source = req.source
    if source is not None:
        return _verdict(req, source.provider, source.api, source.model_id)
    return _verdict(req, None, None, None)


def content_free_verdict(req: Request, msg: Msg) -> bool | None:
    """The turn's verdict from its stamp or the declared source; ``None``: from evidence."""
    if STAMP_KEY in msg:
        return _stamp_verdict(req, msg[STAMP_KEY])
    return _unstamped_verdict(req)


def _replayable(
    req: Request, index: int, msg: Msg, verdict: bool | None
) -> tuple[bool, list[Violation]]:
    """Whether the turn's opaque data may go to the target, as the passes decide it.

    Mirrors :func:`~litellm_hygiene._provenance.attribute_source` followed by
    :func:`~litellm_hygiene._provenance.is_replayable`; only the evidence case (no
    ``verdict`` from the stamp or the declared source) decodes.
    """
    if verdict is not None:
        return verdict, []
    try:
        decoded = decode_message(msg, index)
    except InvalidMessageError as err:
        return False, [req.report("malformed_message", index, err.field, err.reason)]
    assert isinstance(decoded, AssistantMessage)
    return is_replayable(attribute_source(decoded, req.source), req.target, req.policy), []


def _field_violation(req: Request, index: int, key: str, why: str) -> Violation:
    return req.report("response_only_field", index, key, why, kind="extra_field", key=key)


def _foreign(req: Request, index: int, site: _Site) -> Violation:
    code, kind = _FOREIGN[site.kind]
    reason = f"{site.kind.replace('_', ' ')} data from another model (not replayable here)"
    return req.report(code, index, site.field, reason, kind=kind, local=site.local, item=site.item)


def _not_base64(req: Request, index: int, site: _Site) -> Violation:
    return req.report(
        "non_base64_thought_signature",
        index,
        site.field,
        "thought signature is not canonical base64",
        kind="non_base64_signature",
        local=site.local,
        call=site.call,
        sig=site.value,
    )


Offences = tuple[bool, list[_Site], list[str], list[Violation]]
"""Whether a turn is replayable, its sites and keys that break a rule, and read errors."""


def turn_offences(
    req: Request, index: int, msg: Msg, foreign_only: Sequence[str], verdict: bool | None
) -> Offences:
    """What in one assistant turn breaks a provenance rule (nothing: three empty lists).

    ``verdict`` is the turn's :func:`content_free_verdict`. The hot path's scan asks
    this for a turn that may carry opaque data, without building the violations.
    """
    if verdict and not req.policy.require_base64_thought_signatures:
        return True, [], [], []  # a replayable turn keeps everything
    sites = _signature_sites(req, msg)
    foreign_keys = [key for key in foreign_only if _has_value(msg.get(key))]
    if not sites and not foreign_keys:
        return True, [], [], []
    replayable, out = _replayable(req, index, msg, verdict)
    if not replayable:
        return False, sites, foreign_keys, out
    if req.policy.require_base64_thought_signatures:
        bad = [
            site
            for site in sites
            if site.kind in _THOUGHT_SIGNATURE_KINDS and not is_canonical_base64(site.value)
        ]
        return True, bad, [], out
    return True, [], [], out


def _judge_turn(req: Request, index: int, msg: Msg, foreign_only: Sequence[str]) -> list[Violation]:
    verdict = content_free_verdict(req, msg)
    replayable, sites, foreign_keys, out = turn_offences(req, index, msg, foreign_only, verdict)
    if not replayable:
        why = "response-only field of a turn from another model"
        out += [_field_violation(req, index, key, why) for key in foreign_keys]
        out += [_foreign(req, index, site) for site in sites]
    else:
        out += [_not_base64(req, index, site) for site in sites]
    return out


def check_provenance(req: Request) -> list[Violation]:
    """Stamps, response-only fields and opaque data that the target must not receive."""
    out: list[Violation] = []
    strip = sorted(req.policy.strip_fields)
    foreign_only = sorted(req.policy.strip_foreign_fields - req.policy.strip_fields)
    for index, msg in enumerate(req.messages):
        if msg is None:
            continue
        if STAMP_KEY in msg:
            out.append(
                req.report(
                    "hygiene_stamp",
                    index,
                    STAMP_KEY,
                    "litellm_hygiene's provenance stamp must be removed before sending",
                    kind="extra_field",
                    key=STAMP_KEY,
                )
            )
        if msg.get("role") != "assistant":
            continue
        why = "response-only field the target rejects or misreads"
        out += [_field_violation(req, index, key, why) for key in strip if key in msg]
        out += _judge_turn(req, index, msg, foreign_only)
    return out
