"""Which wire LiteLLM sends for ``/v1/messages`` and ``/v1/responses``: resolved vs observed.

Each case calls ``litellm.anthropic.messages.acreate`` or ``litellm.aresponses`` with a
recording callback in ``litellm.callbacks``. The route LiteLLM took is what its deployment
hooks show: no inner call is native, an inner ``acompletion`` is the chat bridge, an inner
``aresponses`` the Responses bridge. The inner hook raises, so a bridged call stops before
any HTTP; a native one reaches the local stand-in, never the network. The resolver, given
the outer hook's kwargs, must name the route LiteLLM took, on whichever release is installed.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Awaitable, Iterator
from dataclasses import dataclass, field
from typing import Any

import litellm
import pytest
from litellm.anthropic_interface import messages as anthropic_messages
from litellm.integrations.custom_logger import CustomLogger
from litellm.router import Router

from litellm_hygiene._integration import _routes
from litellm_hygiene._integration._routes import messages_route, responses_route
from litellm_hygiene._standin import StandIn
from litellm_hygiene._standin.serve import answer
from tests.support.cassettes import FAKE_AWS, READONLY_WARNING, warm_up_litellm
from tests.support.litellm_callbacks import restored_callbacks
from tests.support.litellm_version import litellm_version

CLAUDE_BEDROCK = "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0"
VERTEX = {"vertex_project": "project", "vertex_location": "us-east5"}
AZURE = {"api_version": "2025-03-01-preview"}
STOP_SEQUENCES_STAY_ON_CHAT = SERVES_API_BASE = litellm_version() >= (1, 109, 0)

# LiteLLM imports a provider's config on first use; pydantic notes its ReadOnly TypedDicts
# then, which -W error would turn into a failure of whichever call imports it first.
pytestmark = pytest.mark.filterwarnings(f"ignore:{READONLY_WARNING}:UserWarning")


class _Stop(Exception):
    """Raised from a bridge's inner hook: its route is seen, and nothing is sent."""


class _Recorder(CustomLogger):
    """Records every deployment hook call; stops the first inner one."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str | None, dict[str, Any]]] = []

    async def async_pre_call_deployment_hook(
        self, kwargs: dict[str, Any], call_type: Any
    ) -> dict[str, Any] | None:
        self.calls.append((getattr(call_type, "value", call_type), dict(kwargs)))
        if len(self.calls) > 1:
            raise _Stop(self.calls[-1][0])
        return None

    def stopped(self) -> bool:
        """Whether an inner hook ran, and stopped the call."""
        return len(self.calls) > 1

    def observed(self, native: str) -> str:
        """The route the hook calls show: ``native`` when no inner call followed."""
        inner = [call_type for call_type, _ in self.calls[1:]]
        if not inner:
            return native
        return {"acompletion": "chat", "aresponses": "responses"}[str(inner[0])]


async def _sent(call: Awaitable[Any], recorder: _Recorder) -> None:
    """Await a call sent through the recorder: a native route completes (the stand-in
    answers it), a bridge is stopped by the recorder at its inner hook (LiteLLM may wrap
    that stop in its own error); any other failure fails the test."""
    try:
        await call
    except Exception:
        if not recorder.stopped():
            raise


@pytest.fixture(scope="module")
def standin() -> Iterator[StandIn]:
    warm_up_litellm()
    with StandIn(respond=answer) as server:
        yield server


@pytest.fixture(autouse=True)
def _fresh(vertex_token: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Vertex without Google (conftest's token), nothing cached, no cause reported yet."""
    monkeypatch.setattr(_routes, "_REPORTED", set())
    _routes._messages_route.cache_clear()
    _routes._responses_route.cache_clear()
    yield
    _routes._messages_route.cache_clear()
    _routes._responses_route.cache_clear()


@dataclass(frozen=True)
class Case:
    """One call: the model, its extra kwargs, and the route LiteLLM takes."""

    model: str
    route: str
    extra: dict[str, Any] = field(default_factory=dict)
    name: str = ""
    path: str = ""

    @property
    def id(self) -> str:
        return self.name or self.model


MESSAGES = [
    Case("anthropic/claude-sonnet-4-5", "anthropic"),
    Case(CLAUDE_BEDROCK, "anthropic", FAKE_AWS, name="bedrock-invoke"),
    Case("bedrock/converse/us.anthropic.claude-sonnet-4-5-20250929-v1:0", "chat", FAKE_AWS),
    Case("vertex_ai/claude-sonnet-4-5", "anthropic", VERTEX),
    Case("azure_ai/claude-sonnet-4-5", "anthropic"),
    Case("deepseek/deepseek-chat", "anthropic"),
    Case("minimax/MiniMax-M2", "anthropic"),
    Case("openai/gpt-4o", "responses"),
    Case("azure/gpt-4o", "chat", AZURE),
    Case("mistral/mistral-large-latest", "chat"),
    Case("gemini/gemini-2.5-pro", "chat"),
    Case("groq/llama-3.3-70b-versatile", "chat"),
    Case(
        "openai/my-gateway-model",
        "anthropic",
        {"model_info": {"supported_endpoints": ["/v1/messages"]}},
        name="openai-deployment-passes-messages-through",
    ),
    Case(
        "hosted_vllm/my-model",
        "anthropic",
        {
            "model_info": {
                "id": "d1",
                "supported_endpoints": ["/v1/chat/completions", "/v1/messages"],
            }
        },
        name="hosted_vllm-deployment-passes-messages-through",
    ),
    Case(
        "claude-sonnet-4-5",
        "anthropic",
        {"custom_llm_provider": "anthropic"},
        name="custom_llm_provider-anthropic",
    ),
    Case(
        "gpt-4o", "responses", {"custom_llm_provider": "openai"}, name="custom_llm_provider-openai"
    ),
    Case(
        "my-deployment",
        "chat",
        {"custom_llm_provider": "azure", **AZURE},
        name="custom_llm_provider-azure",
    ),
    Case("gpt-4o", "responses", name="openai-by-model-name"),
    Case(
        "openai/gpt-4o",
        "chat" if STOP_SEQUENCES_STAY_ON_CHAT else "responses",
        {"stop_sequences": ["END"]},
        name="openai-stop_sequences",
    ),
    Case(
        "openai/gpt-4o",
        "chat",
        {"compaction": {"type": "compact_20260112"}},
        name="openai-compaction",
    ),
    # 1.109's native config must serve the api_base: DashScope's does only on its Anthropic path.
    Case(
        "dashscope/qwen-plus",
        "anthropic" if SERVES_API_BASE else "chat",
        name="dashscope-anthropic-path",
        path="/apps/anthropic",
    ),
    Case("dashscope/qwen-plus", "chat", name="dashscope-chat-path"),
]


async def _messages(standin: StandIn, case: Case) -> _Recorder:
    standin.reset()
    recorder = _Recorder()
    with restored_callbacks(empty=True):
        litellm.callbacks = [recorder]
        await _sent(
            anthropic_messages.acreate(
                model=case.model,
                max_tokens=64,
                messages=[{"role": "user", "content": "Hello"}],
                api_base=standin.base_url + case.path,
                api_key="sk-test",
                **case.extra,
            ),
            recorder,
        )
    return recorder


def _check(recorder: _Recorder, standin: StandIn, outer: str, native: str) -> str:
    """The observed route, after checking the hooks and the stand-in agree on it."""
    assert recorder.calls, "no deployment hook ran"
    assert recorder.calls[0][0] == outer
    observed = recorder.observed(native)
    if observed == native:
        assert standin.received, "a native call that never reached the stand-in"
    else:
        assert not standin.received, "a bridged call went out despite its hook"
    return observed


@pytest.mark.parametrize("case", MESSAGES, ids=lambda case: case.id)
async def test_messages_route_is_the_route_litellm_takes(standin: StandIn, case: Case) -> None:
    recorder = await _messages(standin, case)
    observed = _check(recorder, standin, "anthropic_messages", "anthropic")
    outer = recorder.calls[0][1]
    assert "custom_llm_provider" not in case.extra or outer["custom_llm_provider"]
    assert (observed, messages_route(outer)) == (case.route, case.route)
    if observed == "responses":  # the bridge's inner aresponses is itself sent natively
        assert responses_route(recorder.calls[1][1]) == "responses"


async def test_the_chat_completions_switch_keeps_openai_on_chat(
    standin: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(litellm, "use_chat_completions_url_for_anthropic_messages", True)
    recorder = await _messages(standin, Case("openai/gpt-4o", "chat"))
    observed = _check(recorder, standin, "anthropic_messages", "anthropic")
    assert (observed, messages_route(recorder.calls[0][1])) == ("chat", "chat")


async def test_a_named_credential_gives_the_api_base_after_the_hook(
    standin: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    from litellm.types.utils import CredentialItem

    credential = CredentialItem(
        credential_name="dashscope-anthropic",
        credential_info={},
        credential_values={"api_base": standin.base_url + "/apps/anthropic"},
    )
    monkeypatch.setattr(litellm, "credential_list", [credential])
    standin.reset()
    recorder = _Recorder()
    with restored_callbacks(empty=True):
        litellm.callbacks = [recorder]
        await _sent(
            anthropic_messages.acreate(
                model="dashscope/qwen-plus",
                max_tokens=64,
                messages=[{"role": "user", "content": "Hello"}],
                api_key="sk-test",
                litellm_credential_name="dashscope-anthropic",
            ),
            recorder,
        )
    observed = _check(recorder, standin, "anthropic_messages", "anthropic")
    outer = recorder.calls[0][1]
    assert "api_base" not in outer
    route = "anthropic" if SERVES_API_BASE else "chat"
    assert (observed, messages_route(outer)) == (route, route)


async def test_a_router_deployment_passes_messages_through(standin: StandIn) -> None:
    deployment = {
        "model_name": "gateway",
        "litellm_params": {
            "model": "openai/my-gateway-model",
            "api_base": standin.base_url,
            "api_key": "sk-test",
        },
        "model_info": {"supported_endpoints": ["/v1/messages"]},
    }
    router = Router(model_list=[deployment], num_retries=0)
    standin.reset()
    recorder = _Recorder()
    with restored_callbacks(empty=True):
        litellm.callbacks = [recorder]
        await _sent(
            router.aanthropic_messages(
                model="gateway", max_tokens=64, messages=[{"role": "user", "content": "Hello"}]
            ),
            recorder,
        )
    observed = _check(recorder, standin, "anthropic_messages", "anthropic")
    outer = recorder.calls[0][1]
    assert outer["custom_llm_provider"] == "openai"
    assert (observed, messages_route(outer)) == ("anthropic", "anthropic")


RESPONSES = [
    Case("openai/gpt-4o", "responses"),
    Case("azure/gpt-4o", "responses", AZURE),
    Case("xai/grok-4", "responses"),
    Case("anthropic/claude-sonnet-4-5", "chat"),
    Case("mistral/mistral-large-latest", "chat"),
    Case("gemini/gemini-2.5-pro", "chat"),
    Case("deepseek/deepseek-chat", "chat"),
    Case("bedrock/converse/us.anthropic.claude-sonnet-4-5-20250929-v1:0", "chat", FAKE_AWS),
    Case("openai/chat_completions/gpt-4o", "chat"),
    Case(
        "openai/gpt-4o", "chat", {"use_chat_completions_api": True}, name="use_chat_completions_api"
    ),
    Case(
        "gpt-4o", "responses", {"custom_llm_provider": "openai"}, name="custom_llm_provider-openai"
    ),
    Case(
        "claude-sonnet-4-5",
        "chat",
        {"custom_llm_provider": "anthropic"},
        name="custom_llm_provider-anthropic",
    ),
    Case("hosted_vllm/my-model", "responses"),
    Case(
        "mistral/my-gateway-model",
        "responses",
        {"model_info": {"supported_endpoints": ["/v1/responses"]}},
        name="mistral-deployment-passes-responses-through",
    ),
]


@pytest.mark.parametrize("case", RESPONSES, ids=lambda case: case.id)
async def test_responses_route_is_the_route_litellm_takes(standin: StandIn, case: Case) -> None:
    standin.reset()
    recorder = _Recorder()
    with restored_callbacks(empty=True):
        litellm.callbacks = [recorder]
        await _sent(
            litellm.aresponses(
                model=case.model,
                input=[{"type": "message", "role": "user", "content": "Hello"}],
                api_base=standin.base_url,
                api_key="sk-test",
                **case.extra,
            ),
            recorder,
        )
    observed = _check(recorder, standin, "aresponses", "responses")
    assert (observed, responses_route(recorder.calls[0][1])) == (case.route, case.route)


@pytest.mark.parametrize(("release", "route"), [((1, 106, 8), None), ((1, 106, 9), "chat")])
def test_responses_infers_the_provider_from_api_base_from_1_106_9(
    monkeypatch: pytest.MonkeyPatch, release: tuple[int, int, int], route: str | None
) -> None:
    monkeypatch.setattr(_routes, "_installed_release", lambda: release)
    kwargs = {"model": "my-model", "api_base": "https://api.groq.com/openai/v1"}
    assert responses_route(kwargs) == route  # 1.106.8 cannot name the provider: LiteLLM raises


def test_the_sync_native_responses_hook_resolves_to_responses(standin: StandIn) -> None:
    standin.reset()
    recorder = _Recorder()
    with restored_callbacks(empty=True):
        litellm.callbacks = [recorder]
        litellm.responses(
            model="openai/gpt-4o",
            input=[{"type": "message", "role": "user", "content": "Hello"}],
            api_base=standin.base_url,
            api_key="sk-test",
        )
    ((call_type, kwargs),) = recorder.calls
    assert call_type == "responses"
    assert kwargs["custom_llm_provider"] == "openai" and kwargs["model"] == "gpt-4o"
    assert responses_route(kwargs) == "responses"


# -- fail open, cheap, read-only --------------------------------------------------------


def _kwargs(model: str, **extra: Any) -> dict[str, Any]:
    return {
        "model": model,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}],
        "input": [{"type": "message", "role": "user", "content": "Hi"}],
        "tools": [{"type": "function", "name": "f", "parameters": {}}],
        "model_info": {"supported_endpoints": ["/v1/chat/completions"], "mode": "chat"},
        "stop_sequences": ["END"],
        **extra,
    }


@pytest.mark.parametrize("model", ["openai/gpt-4o", "anthropic/claude-sonnet-4-5", "gpt-4o"])
def test_the_kwargs_are_not_changed(model: str) -> None:
    kwargs = _kwargs(model, api_base="http://127.0.0.1:9")
    before = copy.deepcopy(kwargs)
    parts = {key: id(value) for key, value in kwargs.items()}
    assert messages_route(kwargs) is not None
    assert responses_route(kwargs) is not None
    assert kwargs == before
    assert {key: id(value) for key, value in kwargs.items()} == parts


def test_a_failing_litellm_gives_none_logged_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(litellm, "get_llm_provider", broken)
    with caplog.at_level(logging.WARNING, logger="litellm_hygiene"):
        for model in ("openai/gpt-4o", "mistral/mistral-large-latest", "openai/gpt-4o"):
            assert messages_route(_kwargs(model)) is None
            assert responses_route(_kwargs(model)) is None
    messages = [record.getMessage() for record in caplog.records]
    assert messages == [
        "litellm_hygiene: cannot tell where LiteLLM sends /v1/messages calls: RuntimeError",
        "litellm_hygiene: cannot tell where LiteLLM sends /v1/responses calls: RuntimeError",
    ]


def test_a_litellm_without_the_pieces_gives_none(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from litellm.utils import ProviderConfigManager

    monkeypatch.delattr(ProviderConfigManager, "get_provider_anthropic_messages_config")
    monkeypatch.delattr(ProviderConfigManager, "get_provider_responses_api_config")
    with caplog.at_level(logging.WARNING, logger="litellm_hygiene"):
        assert messages_route(_kwargs("anthropic/claude-sonnet-4-5")) is None
        assert responses_route(_kwargs("openai/gpt-4o")) is None
    assert [record.getMessage().rsplit(": ", 1)[1] for record in caplog.records] == [
        "AttributeError",
        "AttributeError",
    ]


def test_a_release_line_not_looked_up_gives_none_logged_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(_routes, "_installed_release", lambda: (1, 111, 0))
    with caplog.at_level(logging.WARNING, logger="litellm_hygiene"):
        for _ in range(3):
            assert messages_route(_kwargs("anthropic/claude-sonnet-4-5")) is None
            assert responses_route(_kwargs("openai/gpt-4o")) is None
    (record,) = caplog.records  # one warning for both routes, however many requests
    assert record.levelno == logging.WARNING
    assert record.getMessage() == (
        "litellm_hygiene: LiteLLM 1.111.0: its release line's routes are not looked up: "
        "/v1/messages and /v1/responses requests go out without hygiene (chat completions are "
        "not affected); look the release line up in litellm_hygiene/_integration/_routes.py"
    )


async def test_a_release_line_not_looked_up_leaves_the_chat_route_working(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from litellm_hygiene import HygieneCallback

    monkeypatch.setattr(_routes, "_installed_release", lambda: (1, 111, 0))
    callback = HygieneCallback()
    history = [
        {"role": "user", "content": "Hi"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "toolu_01A09q90qw90lq917835lq9",
                    "type": "function",
                    "function": {"name": "f", "arguments": "{}"},
                }
            ],
        },
        {"role": "user", "content": "go on"},
    ]
    kwargs = {"model": "mistral/mistral-large-latest", "messages": history}
    with caplog.at_level(logging.WARNING, logger="litellm_hygiene"):
        returned = await callback.async_pre_call_deployment_hook(kwargs, "acompletion")
    assert returned is not None
    tool_call_id = returned["messages"][1]["tool_calls"][0]["id"]
    assert len(tool_call_id) == 9 and tool_call_id.isalnum()
    assert not caplog.records  # the chat route does not ask which wire


@pytest.mark.parametrize(
    ("release", "expected"),
    [
        ((1, 106, 2), (False, False, False, False, False)),
        ((1, 106, 8), (False, False, False, False, False)),
        ((1, 106, 9), (False, False, False, True, False)),
        ((1, 106, 12), (False, False, False, True, False)),
        ((1, 108, 0), (False, False, False, True, False)),
        ((1, 108, 14), (False, False, False, True, False)),
        ((1, 109, 0), (True, True, True, True, False)),
        ((1, 109, 3), (True, True, True, True, False)),
        ((1, 110, 0), (True, True, True, True, True)),
        ((1, 110, 2), (True, True, True, True, True)),
    ],
)
def test_each_release_states_its_rules(
    release: tuple[int, int, int], expected: tuple[bool, ...]
) -> None:
    rules = _routes._rules(release)
    assert (
        rules.serves_api_base,
        rules.stop_sequences_stay_on_chat,
        rules.deployment_mode_in_bridge_check,
        rules.responses_provider_from_api_base,
        rules.requested_provider_by_its_prefix,
    ) == expected


def test_1_110_resolves_a_model_by_its_own_prefix_when_it_names_the_same_provider(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """1.110's _resolve_requested_provider, on a prefix that resolves to another name."""
    real = litellm.get_llm_provider

    def aliased(model: str, custom_llm_provider: Any = None, **kwargs: Any) -> Any:
        if model == "openai/my-model" and custom_llm_provider is None:
            return ("my-model", "hosted_vllm", None, kwargs.get("api_base"))
        return real(model=model, custom_llm_provider=custom_llm_provider, **kwargs)

    monkeypatch.setattr(litellm, "get_llm_provider", aliased)
    own = _routes._by_its_own_prefix
    assert own(litellm, "openai/my-model", "hosted_vllm", None) == "my-model"
    assert own(litellm, "openai/my-model", "openai", None) is None  # the prefix itself
    assert own(litellm, "openai/my-model", "groq", None) is None  # resolves elsewhere
    assert own(litellm, "my-gateway/my-model", "hosted_vllm", None) is None  # no provider


def test_the_installed_release_is_a_looked_up_one() -> None:
    assert _routes._installed_release() == litellm_version()
    _routes._rules(litellm_version())


@pytest.mark.parametrize(
    ("extra", "route"),
    [
        ({"mock_response": "hi"}, "messages"),
        ({"tools": [{"type": "mcp", "server_url": "litellm_proxy"}]}, "messages"),
        ({"tools": [{"type": "advisor_20260301", "name": "advisor"}]}, "messages"),
        ({"use_litellm_proxy": True}, "messages"),
        ({"tools": [{"type": "file_search", "vector_store_ids": ["vs"]}]}, "responses"),
        ({"prompt_id": "greeting"}, "responses"),
    ],
)
def test_calls_litellm_serves_itself_are_not_guessed(extra: dict[str, Any], route: str) -> None:
    kwargs = _kwargs("openai/gpt-4o", **extra)
    resolve = messages_route if route == "messages" else responses_route
    assert resolve(kwargs) is None


def test_the_hot_path_resolves_once_per_deployment(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    real = litellm.get_llm_provider

    def counting(*args: Any, **kwargs: Any) -> Any:
        asked.append(kwargs.get("model", args[0] if args else ""))
        return real(*args, **kwargs)

    monkeypatch.setattr(litellm, "get_llm_provider", counting)
    for _ in range(50):
        assert messages_route(_kwargs("mistral/mistral-large-latest")) == "chat"
        assert responses_route(_kwargs("openai/gpt-4o", stop_sequences=None)) == "responses"
    assert len(asked) <= 4


def test_an_authenticating_provider_is_never_asked_to_log_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("get_llm_provider would run GitHub Copilot's device flow")

    monkeypatch.setattr(litellm, "get_llm_provider", refuse)
    assert messages_route(_kwargs("github_copilot/claude-sonnet-4.5")) == "anthropic"
    assert messages_route(_kwargs("github_copilot/gpt-4o")) == "chat"
    assert responses_route(_kwargs("github_copilot/gpt-5.3-codex")) == "responses"
    assert responses_route(_kwargs("github_copilot/gpt-4o")) == "chat"
