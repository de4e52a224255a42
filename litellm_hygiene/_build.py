"""Building neutral-model objects from values the package has already checked.

Pydantic validation is the contract at the package's edges: a caller who builds a
``UserMessage`` by hand gets every type and placement check. Inside the hot path the
decoder and the passes build thousands of objects per request from values they have
checked themselves (the decoder raises ``InvalidMessageError`` before building anything
it could not read; a pass only ever recombines blocks it was given), so validating
them again costs several times the work without catching anything. ``model_construct``
is no cheaper in pydantic 2 (it resolves every default in Python), hence these two
helpers, which produce objects equal to validated ones (same field values, same
``__dict__`` order, fresh mutable defaults). The round-trip and pipeline property tests
re-validate what they build.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

__all__ = ["rebuilt", "trusted"]

M = TypeVar("M", bound=BaseModel)

_new = object.__new__
# BaseModel keeps its state in four slots; their descriptors set them without the
# frozen-model check of ``__setattr__``.
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
_TEMPLATES: dict[type[BaseModel], tuple[dict[str, Any], tuple[str, ...]]] = {}


def _template(cls: type[BaseModel]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The class's defaults in field order, and the fields whose default is a dict."""
    defaults = {name: field.default for name, field in cls.model_fields.items()}
    mutable = tuple(name for name, value in defaults.items() if isinstance(value, dict))
    found = _TEMPLATES[cls] = (defaults, mutable)
    return found


def trusted(cls: type[M], /, **fields: Any) -> M:
    """``cls(**fields)`` without validation, for values known to be valid.

    Every required field must be given; omitted fields take their default (a fresh
    ``{}`` for dict defaults, as pydantic gives).
    """
    defaults, mutable = _TEMPLATES.get(cls) or _template(cls)
    values = {**defaults, **fields}
    for name in mutable:
        if name not in fields:
            values[name] = {}
    obj = _new(cls)
    _set_dict(obj, values)
    _set_fields_set(obj, set(fields))
    _set_extra(obj, None)
    _set_private(obj, None)
    return obj


def rebuilt(obj: M, /, **update: Any) -> M:
    """``obj.model_copy(update=update)`` for a frozen model without extra or private data."""
    new = _new(type(obj))
    _set_dict(new, {**obj.__dict__, **update})
    _set_fields_set(new, obj.__pydantic_fields_set__ | update.keys())
    _set_extra(new, None)
    _set_private(new, None)
    return new
