"""Building neutral-model objects from values the package has already checked.

Pydantic validation is the contract at the package's edges: a caller who builds a
``UserMessage`` by hand gets every type and placement check. Inside the hot path the
decoder and the passes build thousands of objects per request from values they have
checked themselves (the decoder raises ``InvalidMessageError`` before building anything
it could not read; a pass only ever recombines blocks it was given), so validating
them again costs several times the work without catching anything. ``model_construct``
is no cheaper in pydantic 2 (it resolves every default in Python), hence these two
helpers, which produce objects equal to validated ones (same field values, same
``__dict__`` order, same ``model_fields_set``, defaults shared or copied exactly as
pydantic does).

They write pydantic's private slots directly, so they are only right for a class whose
validated construction does nothing beyond storing the values and defaults. Each class
is examined once, on first use, and refused with a ``TypeError`` naming what the
shortcut would skip (a validator, ``model_post_init``, private attributes, extra
fields, a default that pydantic validates or computes from other fields...); after
that a call costs one dict lookup over writing the object. ``tests/support/test_build.py``
checks both helpers against every model class of the package.
"""

from __future__ import annotations

import copy
import typing
from collections.abc import Callable
from functools import partial
from typing import Annotated, Any, Final, TypeVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, PlainValidator, WrapValidator
from pydantic_core import PydanticUndefined

__all__ = ["construct_unchecked", "copy_unchecked", "rejects_only"]

M = TypeVar("M", bound=BaseModel)
F = TypeVar("F", bound=Callable[..., Any])

_new: Final = object.__new__
# BaseModel keeps its state in four slots; their descriptors set them without the
# frozen-model check of ``__setattr__``.
_set_dict: Final = BaseModel.__dict__["__dict__"].__set__
_set_fields_set: Final = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra: Final = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private: Final = BaseModel.__dict__["__pydantic_private__"].__set__

# Per class: every field in order with its shared default (``PydanticUndefined`` for
# required fields and for the fields below), the fields whose default is a fresh ``{}``
# per object, and the fields whose default is made per object (a ``default_factory``,
# or a copy of an unhashable default, as pydantic-core does).
_Template = tuple[dict[str, Any], tuple[str, ...], tuple[tuple[str, Callable[[], Any]], ...]]
_TEMPLATES: Final[dict[type[BaseModel], _Template]] = {}
_COPYABLE: Final[set[type[BaseModel]]] = set()

_REJECTS_ONLY: Final[set[Callable[..., Any]]] = set()
_VALIDATOR_KINDS: Final = ("validators", "root_validators", "field_validators", "model_validators")
_FUNCTION_VALIDATORS: Final = (AfterValidator, BeforeValidator, PlainValidator, WrapValidator)
# Configuration that makes validation change values that are already valid.
_TRANSFORMING_CONFIG: Final = (
    "validate_default",
    "str_strip_whitespace",
    "str_to_lower",
    "str_to_upper",
    "use_enum_values",
)


def rejects_only(func: F) -> F:
    """Mark a validator the unchecked constructors may skip.

    Use it only on a validator that returns its input unchanged or raises: skipping it
    then changes nothing for values that are valid, which is all the unchecked
    constructors are ever given. Apply it under ``@classmethod``.
    """
    _REJECTS_ONLY.add(func)
    return func


def construct_unchecked(cls: type[M], /, **fields: Any) -> M:
    """``cls(**fields)`` without validation, for values known to be valid.

    Every required field must be given, by name, with a value of its validated type
    (a tuple, not a list; a model instance, not a dict); omitted fields take their
    default as pydantic gives it. Raises ``TypeError`` on first use with a class whose
    validated construction does more than store values (see the module docstring).
    """
    defaults, empty_dicts, factories = _TEMPLATES.get(cls) or _template(cls)
    values = {**defaults, **fields}
    for name in empty_dicts:
        if name not in fields:
            values[name] = {}
    for name, make in factories:
        if name not in fields:
            values[name] = make()
    obj = _new(cls)
    _set_dict(obj, values)
    _set_fields_set(obj, set(fields))
    _set_extra(obj, None)
    _set_private(obj, None)
    return obj


def copy_unchecked(obj: M, /, **update: Any) -> M:
    """``obj.model_copy(update=update)``: a shallow copy with fields replaced, unvalidated.

    Raises ``TypeError`` on first use with a class that has private attributes or
    ``extra="allow"`` (``model_copy`` carries those over; this does not).
    """
    cls = type(obj)
    if cls not in _COPYABLE:
        _check_copyable(cls)
    new = _new(cls)
    _set_dict(new, {**obj.__dict__, **update})
    _set_fields_set(new, obj.__pydantic_fields_set__ | update.keys())
    _set_extra(new, None)
    _set_private(new, None)
    return new


def _template(cls: type[BaseModel]) -> _Template:
    """Check ``cls`` once, and record how its defaults are given."""
    skipped = _copy_skips(cls) + _construct_skips(cls)
    if skipped:
        raise TypeError(
            f"construct_unchecked cannot build {cls.__module__}.{cls.__qualname__}: "
            f"it would skip {'; '.join(skipped)}. Build it with {cls.__name__}(...)."
        )
    defaults: dict[str, Any] = {}
    empty_dicts: list[str] = []
    factories: list[tuple[str, Callable[[], Any]]] = []
    for name, field in cls.model_fields.items():
        defaults[name] = PydanticUndefined
        if field.default_factory is not None:
            factories.append((name, typing.cast("Callable[[], Any]", field.default_factory)))
        elif field.default is PydanticUndefined:
            pass
        elif _hashable(field.default):
            defaults[name] = field.default  # pydantic-core shares hashable defaults
        elif type(field.default) is dict and not field.default:
            empty_dicts.append(name)
        else:  # and deep-copies unhashable ones for every object
            factories.append((name, partial(copy.deepcopy, field.default)))
    found = _TEMPLATES[cls] = (defaults, tuple(empty_dicts), tuple(factories))
    return found


def _check_copyable(cls: type[BaseModel]) -> None:
    skipped = _copy_skips(cls)
    if skipped:
        raise TypeError(
            f"copy_unchecked cannot copy {cls.__module__}.{cls.__qualname__}: "
            f"it would drop {'; '.join(skipped)}. Use model_copy(update=...)."
        )
    _COPYABLE.add(cls)


def _copy_skips(cls: type[BaseModel]) -> list[str]:
    """State that ``model_copy`` carries over and the unchecked helpers leave empty."""
    skips = []
    if cls.__new__ is not BaseModel.__new__:
        skips.append("a custom __new__")
    if cls.__private_attributes__:
        skips.append(f"private attributes ({', '.join(cls.__private_attributes__)})")
    if cls.model_config.get("extra") == "allow":
        skips.append('extra fields (extra="allow")')
    return skips


def _construct_skips(cls: type[BaseModel]) -> list[str]:
    """What validated construction of ``cls`` does beyond storing values and defaults."""
    skips = []
    if not cls.__pydantic_complete__:
        skips.append("annotations pydantic has not resolved yet (call model_rebuild())")
    if cls.__init__ is not BaseModel.__init__:
        skips.append("a custom __init__")
    if cls.__pydantic_post_init__ is not None:
        skips.append("model_post_init")
    skips.extend(f"config {key}" for key in _TRANSFORMING_CONFIG if cls.model_config.get(key))
    decorators = cls.__pydantic_decorators__
    for kind in _VALIDATOR_KINDS:
        for name, decorator in getattr(decorators, kind).items():
            func = getattr(decorator.func, "__func__", decorator.func)
            if func not in _REJECTS_ONLY:
                skips.append(f"validator {name} (mark it @rejects_only if it only rejects)")
    for name, field in cls.model_fields.items():
        if field.alias is not None or field.validation_alias is not None:
            skips.append(f"the alias of field {name}")
        if field.validate_default:
            skips.append(f"validate_default of field {name}")
        # pydantic 2.10+: a factory may take the other fields' validated values
        if field.default_factory is not None and getattr(
            field, "default_factory_takes_validated_data", False
        ):
            skips.append(f"the default_factory of field {name}, which reads other fields")
        if any(map(_transforms, field.metadata)) or _annotation_transforms(field.annotation):
            skips.append(f"a validator in the annotation of field {name}")
    return skips


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except Exception:
        return False
    return True


def _transforms(metadata: object) -> bool:
    """Whether an ``Annotated`` entry can change a valid value."""
    if isinstance(metadata, _FUNCTION_VALIDATORS):
        return True
    return any(
        getattr(metadata, flag, None) for flag in ("strip_whitespace", "to_lower", "to_upper")
    )


def _annotation_transforms(annotation: object, seen: frozenset[int] = frozenset()) -> bool:
    """Whether ``Annotated`` metadata anywhere inside a type can change a valid value."""
    if id(annotation) in seen:
        return False
    seen |= {id(annotation)}
    if typing.get_origin(annotation) is Annotated and any(
        map(_transforms, getattr(annotation, "__metadata__", ()))
    ):
        return True
    value = getattr(annotation, "__value__", None)  # a ``type`` alias
    inner = (*typing.get_args(annotation), *(() if value is None else (value,)))
    return any(_annotation_transforms(arg, seen) for arg in inner)
