"""The unchecked constructors against every model class of the package.

``construct_unchecked`` and ``copy_unchecked`` write pydantic's private slots instead of
validating. Each model class found in ``litellm_hygiene`` (by importing every module)
must either be built by them exactly as ``cls(**fields)`` / ``model_copy(update=...)``
build it, or be refused loudly; a new model class fails here until it is given sample
values below.
"""

from __future__ import annotations

import copy
import importlib
import json
import pkgutil
from typing import Annotated, Any

import pytest
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticUndefined

import litellm_hygiene
from litellm_hygiene._build import (
    _REJECTS_ONLY,
    _TEMPLATES,
    construct_unchecked,
    copy_unchecked,
    rejects_only,
)
from litellm_hygiene._content import TextContent, ThinkingContent, ToolCall
from litellm_hygiene._messages import Context, ToolDefinition, Usage, UsageCost, UserMessage
from litellm_hygiene._pipeline import TransformReport
from litellm_hygiene._policy import IdRule
from litellm_hygiene._target import Capabilities, TargetModel


def _package_models() -> dict[str, type[BaseModel]]:
    """Every BaseModel subclass defined in the package, by ``module.qualname``."""
    for module in pkgutil.walk_packages(litellm_hygiene.__path__, "litellm_hygiene."):
        importlib.import_module(module.name)
    found: dict[str, type[BaseModel]] = {}
    pending = [BaseModel]
    while pending:
        for sub in pending.pop().__subclasses__():
            pending.append(sub)
            if sub.__module__.split(".")[0] == "litellm_hygiene":
                found[f"{sub.__module__}.{sub.__qualname__}"] = sub
    return found


MODELS = _package_models()

_TARGET = TargetModel(provider="openai", api="openai-chat", model_id="gpt-4o", family="openai")

# The required fields of every model class, with valid values. ``None`` marks a base
# class that is never built itself (its validated construction fails).
REQUIRED: dict[str, dict[str, Any] | None] = {
    "litellm_hygiene._content._Block": {},
    "litellm_hygiene._content.TextContent": {"text": "hello"},
    "litellm_hygiene._content.ImageContent": {},
    "litellm_hygiene._content.ThinkingContent": {"thinking": "hmm"},
    "litellm_hygiene._content.ToolCall": {"id": "call_1", "name": "lookup"},
    "litellm_hygiene._content.OpaqueContent": {"part": {"type": "input_audio"}},
    "litellm_hygiene._messages._Message": None,
    "litellm_hygiene._messages.SystemMessage": {},
    "litellm_hygiene._messages.UserMessage": {},
    "litellm_hygiene._messages.UsageCost": {},
    "litellm_hygiene._messages.Usage": {},
    "litellm_hygiene._messages.Diagnostic": {"code": "c", "message": "m"},
    "litellm_hygiene._messages.AssistantMessage": {},
    "litellm_hygiene._messages.ToolResultMessage": {"tool_call_id": "call_1"},
    "litellm_hygiene._messages.OpaqueMessage": {"raw": {"role": "critic"}},
    "litellm_hygiene._messages.ToolDefinition": {"name": "lookup"},
    "litellm_hygiene._messages.Context": {},
    "litellm_hygiene._overflow._detect.Overflow": {"kind": "error_code", "signal": "s"},
    "litellm_hygiene._overflow._detect._Hit": {"detail": "d"},
    "litellm_hygiene._overflow._predict.OverflowPrediction": {
        "model": "gpt-4o",
        "estimated_tokens": 10,
        "context_window": 100,
        "window_source": "override",
    },
    "litellm_hygiene._overflow._predict._Limits": {
        "window": 100,
        "source": "max_tokens",
        "max_output": None,
    },
    "litellm_hygiene._target.Capabilities": {},
    "litellm_hygiene._target.TargetModel": {
        "provider": "openai",
        "api": "openai-chat",
        "model_id": "gpt-4o",
        "family": "openai",
    },
    "litellm_hygiene._policy.IdRule": {},
    "litellm_hygiene._policy.Policy": {"family": "openai", "tool_ids": IdRule()},
    "litellm_hygiene._pipeline.TransformReport": {},
    "litellm_hygiene._pipeline.TransformResult": {
        "context": Context(),
        "report": TransformReport(),
    },
    "litellm_hygiene._sanitize.SanitizeResult": {
        "messages": [{"role": "user", "content": "hi"}],
        "report": TransformReport(),
        "target": _TARGET,
    },
    "litellm_hygiene._sanitize.AnthropicSanitizeResult": {
        "messages": [{"role": "user", "content": "hi"}],
        "report": TransformReport(),
        "target": _TARGET,
    },
    "litellm_hygiene._validate.Violation": {
        "index": None,
        "field": "",
        "code": "malformed_request",
        "provider_error": None,
        "message": "m",
    },
    "litellm_hygiene._integration._options.HygieneOptions": {},
}

_TEXT = TextContent(text="a", extra={"k": [1]})
_CALL = ToolCall(id="call_1", name="f", arguments={"x": 1}, signature_sites=("id",))
# Values other than the defaults, for the classes the hot path builds.
VARIED: dict[str, dict[str, Any]] = {
    "litellm_hygiene._content.TextContent": {"text_signature": "c2ln", "extra": {"k": 1}},
    "litellm_hygiene._content.ImageContent": {"data": "aGk=", "mime_type": "image/png"},
    "litellm_hygiene._content.ToolCall": {"arguments": {"q": [1]}, "signature_sites": ("id",)},
    "litellm_hygiene._messages.UserMessage": {"content": (_TEXT,), "content_form": "list"},
    "litellm_hygiene._messages.AssistantMessage": {
        "content": (ThinkingContent(thinking="t"), _TEXT, _CALL),
        "usage": Usage(input=3, cost=UsageCost(total=1.0)),
        "provider_specific_fields": {"a": None},
    },
    "litellm_hygiene._messages.ToolResultMessage": {"content": (_TEXT,), "is_error": True},
    "litellm_hygiene._messages.Context": {
        "system_prompt": "be brief",
        "messages": (UserMessage(content=(_TEXT,)),),
        "tools": (ToolDefinition(name="f", parameters={"type": "object"}),),
    },
    "litellm_hygiene._target.TargetModel": {"capabilities": Capabilities(images=True)},
}

BUILT = sorted(name for name, fields in REQUIRED.items() if fields is not None)


def _explicit(cls: type[BaseModel]) -> dict[str, Any]:
    """Every field with a default, given explicitly with that default."""
    values: dict[str, Any] = {}
    for name, field in cls.model_fields.items():
        if field.default_factory is not None:
            values[name] = field.get_default(call_default_factory=True)
        elif field.default is not PydanticUndefined:
            values[name] = copy.deepcopy(field.default)
    return values


def _cases(name: str) -> list[dict[str, Any]]:
    cls, required = MODELS[name], REQUIRED[name]
    assert required is not None
    return [required, {**required, **_explicit(cls)}, {**required, **VARIED.get(name, {})}]


def _unordered(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _unordered(v) for k, v in value.items()}
    if isinstance(value, list):
        items = [_unordered(v) for v in value]
        return sorted(items) if all(isinstance(v, str) for v in items) else items
    return value


def assert_same(built: BaseModel, validated: BaseModel) -> None:
    """Two objects are indistinguishable, down to ``__dict__`` order and fields set."""
    assert type(built) is type(validated)
    assert built == validated
    assert list(built.__dict__) == list(validated.__dict__)
    assert built.__dict__ == validated.__dict__
    assert built.model_fields_set == validated.model_fields_set
    assert built.__pydantic_extra__ == validated.__pydantic_extra__
    assert built.__pydantic_private__ == validated.__pydantic_private__
    assert built.model_dump() == validated.model_dump()
    assert built.model_dump(exclude_unset=True) == validated.model_dump(exclude_unset=True)
    # Sets serialize in iteration order, which two equal frozensets need not share.
    assert _unordered(json.loads(built.model_dump_json())) == _unordered(
        json.loads(validated.model_dump_json())
    )


def assert_defaults_like_pydantic(cls: type[BaseModel], fields: dict[str, Any]) -> None:
    """Defaults are shared or fresh per object exactly where pydantic's are."""
    built = construct_unchecked(cls, **fields), construct_unchecked(cls, **fields)
    validated = cls(**fields), cls(**fields)
    for name, field in cls.model_fields.items():
        if name in fields:
            continue
        shared = getattr(built[0], name) is getattr(built[1], name)
        assert shared == (getattr(validated[0], name) is getattr(validated[1], name)), name
        if shared:  # only immutable values may be shared between objects
            hash(getattr(built[0], name))
        elif field.default is not PydanticUndefined:
            assert getattr(built[0], name) is not field.default, name


def test_every_model_class_has_sample_values() -> None:
    assert sorted(MODELS) == sorted(REQUIRED), "add the new model class to REQUIRED"
    assert set(VARIED) <= set(BUILT)
    for name, required in REQUIRED.items():
        cls = MODELS[name]
        if required is None:  # a base class: its subclasses are checked instead
            assert any(issubclass(sub, cls) and sub is not cls for sub in MODELS.values())
            continue
        needed = {field for field, info in cls.model_fields.items() if info.is_required()}
        assert set(required) == needed, name


@pytest.mark.parametrize("name", BUILT)
def test_construct_unchecked_equals_validated_construction(name: str) -> None:
    cls = MODELS[name]
    for fields in _cases(name):
        assert_same(construct_unchecked(cls, **fields), cls(**fields))
        assert_same(construct_unchecked(cls, **fields), cls.model_validate(fields))
    assert_defaults_like_pydantic(cls, REQUIRED[name] or {})


@pytest.mark.parametrize("name", BUILT)
def test_copy_unchecked_equals_model_copy(name: str) -> None:
    cls = MODELS[name]
    for fields in _cases(name):
        for source in (cls(**fields), construct_unchecked(cls, **fields)):
            assert_same(copy_unchecked(source), source.model_copy())
            updates = [{}, *({key: value} for key, value in _explicit(cls).items())]
            updates += [_explicit(cls), VARIED.get(name, {})]
            for update in updates:
                copied = copy_unchecked(source, **update)
                assert_same(copied, source.model_copy(update=update))
                assert copied is not source


@pytest.mark.parametrize("name", sorted(MODELS))
def test_skipped_validators_only_reject(name: str) -> None:
    """A validator marked skippable returns valid input unchanged."""
    cls, required = MODELS[name], REQUIRED[name]
    decorators = cls.__pydantic_decorators__
    for kind in ("validators", "root_validators", "field_validators"):
        assert not getattr(decorators, kind), f"{name}: extend this test to {kind}"
    for decorator in decorators.model_validators.values():
        assert getattr(decorator.func, "__func__", None) in _REJECTS_ONLY
        assert decorator.info.mode == "before", "extend this test to other modes"
        if required is None:
            continue
        for fields in _cases(name):
            data = dict(fields)
            assert decorator.func(data) is data
            assert data == fields


# Throwaway classes: what the shortcut handles, and what it must refuse.


_CALLS: list[None] = []


def _numbered() -> list[int]:
    _CALLS.append(None)
    return [1]


class _WithFactories(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    tags: list[str] = Field(default_factory=list)
    numbered: list[int] = Field(default_factory=_numbered)
    nested: dict[str, list[int]] = {"a": [1]}
    items: list[int] = []
    pair: tuple[int, ...] = (1, 2)
    limits: Capabilities = Capabilities()


def test_default_factory_fields_are_made_per_object() -> None:
    _CALLS.clear()
    built = construct_unchecked(_WithFactories, name="x")
    assert len(_CALLS) == 1
    assert built.numbered == [1] and built.tags == [] and built.nested == {"a": [1]}
    assert built.model_fields_set == {"name"}
    given = construct_unchecked(_WithFactories, name="x", numbered=[7])
    assert len(_CALLS) == 1, "a given value does not call the factory"
    assert given.numbered == [7]

    assert_same(construct_unchecked(_WithFactories, name="x"), _WithFactories(name="x"))
    assert_defaults_like_pydantic(_WithFactories, {"name": "x"})
    first, second = (construct_unchecked(_WithFactories, name="x") for _ in range(2))
    assert first.tags is not second.tags
    assert first.nested["a"] is not second.nested["a"]
    assert first.nested["a"] is not _WithFactories.model_fields["nested"].default["a"]
    first.tags.append("changed")
    assert construct_unchecked(_WithFactories, name="x").tags == []


class _Marked(BaseModel):
    text: str

    @model_validator(mode="before")
    @classmethod
    @rejects_only
    def _check(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("text") == "bad":
            raise ValueError("bad")
        return data


def test_a_validator_marked_rejects_only_is_skipped() -> None:
    assert_same(construct_unchecked(_Marked, text="ok"), _Marked(text="ok"))


class _FieldValidator(BaseModel):
    text: str

    @field_validator("text")
    @classmethod
    def _strip(cls, value: str) -> str:
        return value.strip()


class _ModelValidator(BaseModel):
    text: str

    @model_validator(mode="after")
    def _check(self) -> _ModelValidator:
        return self


class _PostInit(BaseModel):
    text: str

    def model_post_init(self, context: Any, /) -> None:
        pass


class _Private(BaseModel):
    text: str
    _cache: dict[str, int] = PrivateAttr(default_factory=dict)


class _ExtraAllowed(BaseModel):
    model_config = ConfigDict(extra="allow")

    text: str


class _ValidatedDefaults(BaseModel):
    model_config = ConfigDict(validate_default=True)

    text: str = "x"


class _ValidatedDefault(BaseModel):
    text: str = Field(default="x", validate_default=True)


class _Stripped(BaseModel):
    model_config = ConfigDict(str_strip_whitespace=True)

    text: str


class _AnnotatedValidator(BaseModel):
    text: Annotated[str, AfterValidator(str.strip)]


class _NestedValidator(BaseModel):
    texts: tuple[Annotated[str, BeforeValidator(str.strip)], ...]


class _Aliased(BaseModel):
    text: str = Field(alias="body")


class _CustomInit(BaseModel):
    text: str

    def __init__(self, **data: Any) -> None:
        super().__init__(**data)


class _FactoryReadingData(BaseModel):
    text: str
    copy_of_text: str = Field(default_factory=lambda data: data["text"])


_REFUSED: list[tuple[type[BaseModel], str]] = [
    (_FieldValidator, "validator _strip"),
    (_ModelValidator, "validator _check"),
    (_PostInit, "model_post_init"),
    (_Private, "private attributes (_cache)"),
    (_ExtraAllowed, 'extra="allow"'),
    (_ValidatedDefaults, "config validate_default"),
    (_ValidatedDefault, "validate_default of field text"),
    (_Stripped, "config str_strip_whitespace"),
    (_AnnotatedValidator, "a validator in the annotation of field text"),
    (_NestedValidator, "a validator in the annotation of field texts"),
    (_Aliased, "the alias of field text"),
    (_CustomInit, "a custom __init__"),
    (_FactoryReadingData, "the default_factory of field copy_of_text"),
]


@pytest.mark.parametrize(("cls", "reason"), _REFUSED, ids=[c.__name__ for c, _ in _REFUSED])
def test_classes_the_shortcut_would_get_wrong_are_refused(
    cls: type[BaseModel], reason: str
) -> None:
    for _ in range(2):  # every time, not only on first use
        with pytest.raises(TypeError, match="construct_unchecked cannot build") as err:
            construct_unchecked(cls, text="x")
        assert reason in str(err.value)
        assert cls.__qualname__ in str(err.value)
    assert cls not in _TEMPLATES


@pytest.mark.parametrize("cls", [_Private, _ExtraAllowed])
def test_copy_refuses_state_model_copy_would_carry(cls: type[BaseModel]) -> None:
    with pytest.raises(TypeError, match="copy_unchecked cannot copy"):
        copy_unchecked(cls(text="x"))


@pytest.mark.parametrize("cls", [_FieldValidator, _ModelValidator, _PostInit, _Stripped])
def test_copy_accepts_classes_whose_checks_model_copy_skips_too(
    cls: type[BaseModel],
) -> None:
    source = cls(text="x")
    assert_same(copy_unchecked(source, text=" y "), source.model_copy(update={"text": " y "}))
