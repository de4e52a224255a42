"""Tool calls and tool ids: OpenAI wire shape to neutral :class:`ToolCall` and back.

A Gemini thought signature can travel in three places on LiteLLM's OpenAI shape: inside
the id (``call_<id>__thought__<signature>``), in the call's
``provider_specific_fields.thought_signature``, or in ``function.provider_specific_fields``.
The decoder lifts it into ``ToolCall.thought_signature`` and records the sites, so the
encoder writes it back to the same places, or to none once a pass has dropped it.
"""

from __future__ import annotations

from typing import Any, Final

from .._build import construct_unchecked
from .._content import SignatureSite, ToolCall
from .._errors import InvalidMessageError
from .._json import copy_dict, copy_json, decode_arguments, encode_arguments
from .._wire._ids import THOUGHT_SEPARATOR, join_id, split_id
from .._wire._keys import PROVIDER_FIELDS, THOUGHT_SIGNATURE

__all__ = [
    "decode_function_call",
    "decode_tool_call",
    "encode_function_call",
    "encode_tool_call",
    "writes_fields",
]

_PSF: Final = PROVIDER_FIELDS


def _copy_without(mapping: dict[str, Any], skip: tuple[str, ...]) -> dict[str, Any]:
    return {k: copy_json(v) for k, v in mapping.items() if k not in skip}


def _psf_signature(container: dict[str, Any], found: str | None) -> str | None:
    """The signature in ``container``'s provider fields, if it can be lifted.

    Lifted only when it agrees with a signature already found (or none was), so two
    different values never collapse into one.
    """
    psf = container.get(_PSF)
    if not isinstance(psf, dict):
        return None
    value = psf.get(THOUGHT_SIGNATURE)
    if isinstance(value, str) and value and (found is None or value == found):
        return value
    return None


def _without_signature(fields: dict[str, Any], lifted: bool, skip: tuple[str, ...]) -> Any:
    out = _copy_without(fields, skip)
    if lifted:
        out[_PSF] = _copy_without(fields[_PSF], (THOUGHT_SIGNATURE,))
    return out


def _decode_arguments(value: Any, index: int, where: str) -> tuple[dict[str, Any], str | None]:
    """Decode ``arguments``; ``where`` names the object holding them, for errors."""
    if isinstance(value, str):
        return decode_arguments(value), value
    if isinstance(value, dict):
        return copy_json(value), None
    raise InvalidMessageError(
        index, f"{where}.arguments", f"expected a JSON string, got {type(value).__name__}"
    )


def _function_of(call: dict[str, Any], index: int, where: str) -> dict[str, Any]:
    function = call.get("function")
    if not isinstance(function, dict):
        raise InvalidMessageError(index, f"{where}.function", "expected an object")
    if not isinstance(function.get("name"), str):
        raise InvalidMessageError(index, f"{where}.function.name", "expected the tool's name")
    if "arguments" not in function:
        raise InvalidMessageError(index, f"{where}.function.arguments", "missing")
    return function


def _plain_call(call: Any) -> ToolCall | None:
    """The call, when it has exactly the shape LiteLLM returns and nothing else.

    ``{"id", "type", "function": {"name", "arguments"}}`` with strings, no signature:
    nearly every call. Built as the general path below builds it, without its lookups.
    """
    if type(call) is not dict or len(call) != 3:
        return None
    function, call_id, kind = call.get("function"), call.get("id"), call.get("type")
    if type(function) is not dict or len(function) != 2 or type(kind) is not str:
        return None
    name, text = function.get("name"), function.get("arguments")
    if type(call_id) is not str or not call_id or THOUGHT_SEPARATOR in call_id:
        return None
    if type(name) is not str or type(text) is not str:
        return None
    return construct_unchecked(
        ToolCall,
        id=call_id,
        name=name,
        arguments=decode_arguments(text),
        raw_arguments=text,
        thought_signature=None,
        signature_sites=(),
        wire_type=kind,
        extra={},
        function_extra={},
    )


def decode_tool_call(call: Any, index: int, where: str) -> ToolCall:
    """Decode one entry of an assistant message's ``tool_calls``."""
    plain = _plain_call(call)
    if plain is not None:
        return plain
    if not isinstance(call, dict):
        raise InvalidMessageError(index, where, "expected a tool call object")
    function = _function_of(call, index, where)
    arguments, raw = _decode_arguments(function["arguments"], index, f"{where}.function")
    raw_id = call.get("id")
    call_id, signature = split_id(raw_id) if isinstance(raw_id, str) else ("", None)
    sites: list[SignatureSite] = ["id"] if signature is not None else []
    call_sig = _psf_signature(call, signature)
    if call_sig is not None:
        signature = call_sig
        sites.append(_PSF)
    function_sig = _psf_signature(function, signature)
    if function_sig is not None:
        signature = function_sig
        sites.append("function.provider_specific_fields")
    skip = ("function", "type") + (("id",) if call_id else ())
    function_extra = _without_signature(
        function, function_sig is not None, ("name",) if raw is None else ("name", "arguments")
    )
    wire_type = call.get("type", None)
    return construct_unchecked(
        ToolCall,
        id=call_id,
        name=function["name"],
        arguments=arguments,
        raw_arguments=raw,
        thought_signature=signature,
        signature_sites=tuple(sites),
        wire_type=wire_type if isinstance(wire_type, str) else None,
        extra=_without_signature(
            call, call_sig is not None, skip if isinstance(wire_type, str) else skip[:1] + skip[2:]
        ),
        function_extra=function_extra,
    )


def decode_function_call(call: Any, index: int) -> ToolCall:
    """Decode the legacy ``function_call`` of an assistant message."""
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        raise InvalidMessageError(index, "function_call", "expected an object with a 'name'")
    if "arguments" not in call:
        raise InvalidMessageError(index, "function_call.arguments", "missing")
    arguments, raw = _decode_arguments(call["arguments"], index, "function_call")
    skip = ("name",) if raw is None else ("name", "arguments")
    return construct_unchecked(
        ToolCall,
        id="",
        name=call["name"],
        arguments=arguments,
        raw_arguments=raw,
        origin="function_call",
        wire_type=None,
        function_extra=_copy_without(call, skip),
    )


def writes_fields(fields: dict[str, Any], signature: str | None, site: bool) -> bool:
    """Whether the encoder writes ``provider_specific_fields`` into a call's object.

    ``fields`` is the object's unknown keys, ``site`` whether the signature travels
    there.
    """
    if not site:
        return _PSF in fields
    psf = fields.get(_PSF)
    return signature is not None or (isinstance(psf, dict) and bool(psf))


def _write_psf(out: dict[str, Any], signature: str | None) -> None:
    """Put the signature back into ``out``'s provider fields (dropping them if empty)."""
    psf = out.get(_PSF)
    rest = dict(psf) if isinstance(psf, dict) else {}
    if signature is not None:
        rest[THOUGHT_SIGNATURE] = signature
    if rest:
        out[_PSF] = rest
    else:
        out.pop(_PSF, None)


def encode_function_call(call: ToolCall) -> dict[str, Any]:
    """Write the ``function`` object of a call (also the legacy ``function_call``)."""
    out = copy_dict(call.function_extra)
    if "function.provider_specific_fields" in call.signature_sites:
        _write_psf(out, call.thought_signature)
    out["name"] = call.name
    if call.raw_arguments is not None:
        out["arguments"] = call.raw_arguments
    elif out.get("arguments") != call.arguments:
        out["arguments"] = encode_arguments(call.arguments)
    return out


def encode_tool_call(call: ToolCall) -> dict[str, Any]:
    """Write one ``tool_calls`` entry."""
    if (
        not call.extra
        and not call.function_extra
        and not call.signature_sites
        and call.id
        and call.wire_type is not None
        and call.raw_arguments is not None
    ):  # what the general path below writes for a call of LiteLLM's own shape
        function = {"name": call.name, "arguments": call.raw_arguments}
        return {"id": call.id, "type": call.wire_type, "function": function}
    out = copy_dict(call.extra)
    if _PSF in call.signature_sites:
        _write_psf(out, call.thought_signature)
    if call.id:
        out["id"] = join_id(call.id, call.thought_signature, "id" in call.signature_sites)
    if call.wire_type is not None:
        out["type"] = call.wire_type
    out["function"] = encode_function_call(call)
    return out
