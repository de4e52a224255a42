"""The LiteLLM release under test, and the wire facts that differ between releases.

This is a test-support module, not a test file.

The project supports a range of LiteLLM releases (``pyproject.toml``); the ``dev`` extra
pins the one the cassettes were recorded with (:data:`CASSETTE_RELEASE`), and CI also runs
the wire-level tests on the newest release in the range (``.ci/run``). Where releases put
different bodies on the wire for the same call, the difference is declared here, once: a
:class:`Change` names what LiteLLM changed and the first release of each line that has
it. Nothing is ignored: the cassette matcher expects, byte for byte, the body the
*installed* release sends (:func:`recorded_as_installed`), and
``tests/integration/test_litellm_versions.py`` reads each fact off the installed release's own body.
What LiteLLM *does* differently (it refuses Router subclasses, resends a rejected request
once) is a :class:`Fact` of the same form, in :data:`FACTS`, each read off the installed
release by its own test.

A release line with no entry (1.111, say, once the range admits it) fails every test that
needs the fact (:class:`UnknownRelease`): a new line's behaviour is looked up in its
source and written down here, never assumed. ``python -m tests.support.litellm_release_check
VERSION`` runs those tests on any release in a scratch virtualenv and prints what differs.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib.metadata import version
from typing import Any

from packaging.version import Version

__all__ = [
    "ANTHROPIC_SERVER_TOOL_CALLS_APART",
    "CASSETTE_RELEASE",
    "CHANGES",
    "FACTS",
    "GEMINI_3_NO_DEFAULT_TEMPERATURE",
    "GEMINI_RESENDS_REJECTED_THOUGHT_SIGNATURES",
    "MESSAGES_BRIDGE_RESENDS_WITHOUT_ENCRYPTED_REASONING",
    "MESSAGES_TO_ANTHROPIC_ON_RUST_RUNS_THE_DEPLOYMENT_HOOK",
    "RESPONSES_SYSTEM_AS_INPUT",
    "RESPONSES_SYSTEM_AS_INPUT_WHEN_NOT_STORED",
    "ROUTER_REFUSES_SUBCLASSES",
    "Change",
    "Fact",
    "Release",
    "UnknownRelease",
    "litellm_version",
    "recorded_as_installed",
]

Release = tuple[int, int, int]
"""A LiteLLM release as ``(major, minor, patch)``; a ``.postN`` counts as its release."""

CASSETTE_RELEASE: Release = (1, 106, 2)
"""The release every cassette was recorded with: the ``dev`` extra's pin (a test holds
the two together). Re-recording on another release is refused (``tests/support/cassettes.py``)."""


@cache
def litellm_version() -> Release:
    """The installed LiteLLM release."""
    major, minor, patch, *_ = (*Version(version("litellm")).release, 0, 0)
    return (major, minor, patch)


def _text(release: Release) -> str:
    return ".".join(map(str, release))


class UnknownRelease(LookupError):
    """A :class:`Change` has not been looked up for the installed release's line."""


@dataclass(frozen=True)
class Fact:
    """Something LiteLLM does, and the releases that do it.

    LiteLLM backports fixes to older lines, so a fact has a first patch release per
    line, not one version after which it holds.

    Attributes:
        what: What LiteLLM does, and where in its source.
        first_patch: For each ``(major, minor)`` line checked, the first patch release
            that does it, or ``None`` when no release of the line does.
    """

    what: str
    first_patch: Mapping[tuple[int, int], int | None]

    def holds(self, release: Release | None = None) -> bool:
        """Whether ``release`` (default: the installed one) does it."""
        release = litellm_version() if release is None else release
        line = release[:2]
        if line not in self.first_patch:
            checked = ", ".join(f"{a}.{b}" for a, b in sorted(self.first_patch))
            raise UnknownRelease(
                f"LiteLLM {_text(release)}: {self.what!r} was checked for {checked} only; "
                f"look it up in {line[0]}.{line[1]}'s source and add the line to "
                "tests/support/litellm_version.py"
            )
        first = self.first_patch[line]
        return first is not None and release[2] >= first


@dataclass(frozen=True)
class Change(Fact):
    """A change in what LiteLLM sends: a :class:`Fact` the cassette matcher applies.

    Attributes:
        applies: Whether a request (URL path, parsed body) is one the change concerns.
        rewrite: A concerned body as a release *without* the change sends it, rewritten
            as a release *with* it sends it (a new object; the argument is not changed).
    """

    applies: Callable[[str, Any], bool]
    rewrite: Callable[[Any], Any]


_GEMINI_3_PATH = re.compile(r"/models/gemini-(\d+)[^/:]*:(stream)?[gG]enerateContent$")


def _is_gemini_3_request(path: str, body: Any) -> bool:
    found = _GEMINI_3_PATH.search(path)
    return found is not None and int(found.group(1)) >= 3 and isinstance(body, dict)


def _without_default_temperature(body: Any) -> Any:
    out = copy.deepcopy(body)
    config = out.get("generationConfig")
    if isinstance(config, dict) and config.get("temperature") == 1.0:
        del config["temperature"]
        if not config:
            del out["generationConfig"]
    return out


GEMINI_3_NO_DEFAULT_TEMPERATURE = Change(
    what=(
        "Gemini 3 requests no longer get generationConfig.temperature = 1.0 when the caller "
        "set none (1.106's VertexGeminiConfig.map_openai_params added it; removed in 1.108.0; "
        "not in 1.110.2's llms/vertex_ai/gemini/vertex_and_google_ai_studio_gemini.py)"
    ),
    first_patch={(1, 106): None, (1, 108): 0, (1, 109): 0, (1, 110): 0},
    # The cassette scenarios never set temperature 1.0 themselves, so a recorded 1.0 on
    # Gemini 3 is always LiteLLM's default.
    applies=_is_gemini_3_request,
    rewrite=_without_default_temperature,
)


def _is_bridged_responses_request(path: str, body: Any) -> bool:
    return path.endswith("/responses") and isinstance(body, dict) and "instructions" in body


def _system_as_input_item(body: Any) -> Any:
    out = copy.deepcopy(body)
    system = {
        "type": "message",
        "role": "system",
        "content": [{"type": "input_text", "text": out.pop("instructions")}],
    }
    out["input"] = [system, *out.get("input", [])]
    return out


RESPONSES_SYSTEM_AS_INPUT = Change(
    what=(
        "acompletion to OpenAI's Responses API (openai/responses/..., also azure, azure_ai, "
        "bedrock_mantle) sends a leading system message as a system-role input item instead "
        "of `instructions` (completion_extras/litellm_responses_transformation: "
        "_SYSTEM_INPUT_PROVIDERS; backported to 1.106.11, 1.108.12, 1.109.2). 1.110.0 has no "
        "_SYSTEM_INPUT_PROVIDERS (instructions always), 1.110.1 moves it only for store=False "
        "(RESPONSES_SYSTEM_AS_INPUT_WHEN_NOT_STORED), 1.110.2 as 1.109.2 (transformation.py:230 "
        "and :1281-1292)"
    ),
    first_patch={(1, 106): 11, (1, 108): 12, (1, 109): 2, (1, 110): 2},
    # Written for one leading string system message, the only kind the cassettes hold;
    # several would have been joined into one `instructions` and need more than this.
    applies=_is_bridged_responses_request,
    rewrite=_system_as_input_item,
)

CHANGES: tuple[Change, ...] = (GEMINI_3_NO_DEFAULT_TEMPERATURE, RESPONSES_SYSTEM_AS_INPUT)
"""Every change between :data:`CASSETTE_RELEASE` and a release the tests run on."""

RESPONSES_SYSTEM_AS_INPUT_WHEN_NOT_STORED = Fact(
    what=(
        "acompletion to OpenAI's Responses API with store=False sends a leading system message "
        "as a system-role input item; 1.110.1 does so only then (it keeps `instructions` while "
        "`store is not False`: completion_extras/litellm_responses_transformation/"
        "transformation.py, the condition 1.110.2 dropped at :1291), 1.110.0 never"
    ),
    first_patch={(1, 106): 11, (1, 108): 12, (1, 109): 2, (1, 110): 1},
)

ROUTER_REFUSES_SUBCLASSES = Fact(
    what=(
        "litellm.Router cannot be subclassed: Router.__init_subclass__ raises TypeError "
        "(1.110.2 router.py:368-373; the Router is a facade over router_rust/core.py's RustCore, "
        "which calls every deployment attempt through its host: PythonHost.invoke, "
        "router_python_host.py; Router.from_config(config, host), router.py:379, takes another "
        "host). 1.109.3's __init_subclass__ passes the class on"
    ),
    first_patch={(1, 106): None, (1, 108): None, (1, 109): None, (1, 110): 0},
)

MESSAGES_BRIDGE_RESENDS_WITHOUT_ENCRYPTED_REASONING = Fact(
    what=(
        "/v1/messages bridged to chat completions (or the Responses API) resends the request "
        "once without its encrypted reasoning when the provider rejects it "
        "(invalid_encrypted_content, 'could not be verified'): two inner calls with one "
        "litellm_call_id, the first failure marked resent (_internal_context.resent_on) but "
        "still given to the failure deployment hook. 1.110.2 llms/anthropic/messages/adapters/"
        "handler.py:133-222, responses_adapters/handler.py:436-499, utils.py:2511-2525; not in "
        "1.109.3"
    ),
    first_patch={(1, 106): None, (1, 108): None, (1, 109): None, (1, 110): 0},
)

GEMINI_RESENDS_REJECTED_THOUGHT_SIGNATURES = Fact(
    what=(
        "Gemini answering 400 '... thought signature ...' to a history with replayed "
        "thoughtSignatures gets the request once more, each signature replaced by the "
        "skip_thought_signature_validator placeholder: two HTTP requests, one hook call. 1.110.2 "
        "llms/vertex_ai/gemini/rejected_thought_signature_retry.py; not in 1.109.3"
    ),
    first_patch={(1, 106): None, (1, 108): None, (1, 109): None, (1, 110): 0},
)

ANTHROPIC_SERVER_TOOL_CALLS_APART = Fact(
    what=(
        "Claude's server tool calls (server_tool_use, srvtoolu_ ids) come back in "
        "message.provider_specific_fields['server_tool_calls'], no longer among tool_calls "
        "(1.110.2 llms/anthropic/chat/transformation.py; read back on the way in by "
        "litellm_core_utils/prompt_templates/factory.py:2017-2035); not in 1.109.3"
    ),
    first_patch={(1, 106): None, (1, 108): None, (1, 109): None, (1, 110): 0},
)

MESSAGES_TO_ANTHROPIC_ON_RUST_RUNS_THE_DEPLOYMENT_HOOK = Fact(
    what=(
        "with LITELLM_RUST=1, /v1/messages to Anthropic goes out through the Rust bridge "
        "(rust_bridge/catalog.py RULES: RUST_OPT_IN for provider anthropic) even with a callback "
        "overriding async_pre_call_deployment_hook (only async_pre_request_hook keeps Messages "
        "on Python; the deployment hook does so on Responses only), and the bridge calls that "
        "hook back (rust_bridge/host/callbacks_legacy_python.py before_deployment_call) and "
        "sends the kwargs it returns: the response carries x-litellm-rust: true. Run on 1.106.2 "
        "and 1.110.2; the catalog read in 1.108.14 (anthropic, deepseek, vertex_ai) and 1.109.3"
    ),
    first_patch={(1, 106): 0, (1, 108): 0, (1, 109): 0, (1, 110): 0},
)

FACTS: tuple[Fact, ...] = (
    RESPONSES_SYSTEM_AS_INPUT_WHEN_NOT_STORED,
    ROUTER_REFUSES_SUBCLASSES,
    MESSAGES_BRIDGE_RESENDS_WITHOUT_ENCRYPTED_REASONING,
    GEMINI_RESENDS_REJECTED_THOUGHT_SIGNATURES,
    ANTHROPIC_SERVER_TOOL_CALLS_APART,
    MESSAGES_TO_ANTHROPIC_ON_RUST_RUNS_THE_DEPLOYMENT_HOOK,
)
"""What LiteLLM does differently between releases (not bodies: see :data:`CHANGES`)."""


def recorded_as_installed(path: str, body: Any) -> Any:
    """A body recorded on :data:`CASSETTE_RELEASE`, as the installed release sends it.

    Returns ``body`` itself when no change concerns it. Only changes the cassettes'
    release lacks can be applied: a change it already has would need its inverse.
    """
    for change in CHANGES:
        if change.holds(CASSETTE_RELEASE):
            raise AssertionError(f"cassettes recorded with {change.what!r}: write its inverse")
        if change.applies(path, body) and change.holds():
            body = change.rewrite(body)
    return body
