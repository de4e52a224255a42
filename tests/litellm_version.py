"""The LiteLLM release under test, and the wire facts that differ between releases.

This is a test-support module, not a test file.

The project supports a range of LiteLLM releases (``pyproject.toml``); the ``dev`` extra
pins the one the cassettes were recorded with (:data:`CASSETTE_RELEASE`), and CI also runs
the wire-level tests on the newest release in the range (``.ci/run``). Where releases put
different bodies on the wire for the same call, the difference is declared here, once: a
:class:`Change` names what LiteLLM changed and the first release of each line that has
it. Nothing is ignored: the cassette matcher expects, byte for byte, the body the
*installed* release sends (:func:`recorded_as_installed`), and
``tests/test_litellm_versions.py`` reads each fact off the installed release's own body.

A release line with no entry (1.110, say, once the range admits it) fails every test that
needs the fact (:class:`UnknownRelease`): a new line's behaviour is looked up in its
source and written down here, never assumed.
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
    "CASSETTE_RELEASE",
    "CHANGES",
    "GEMINI_3_NO_DEFAULT_TEMPERATURE",
    "RESPONSES_SYSTEM_AS_INPUT",
    "Change",
    "Release",
    "UnknownRelease",
    "litellm_version",
    "recorded_as_installed",
]

Release = tuple[int, int, int]
"""A LiteLLM release as ``(major, minor, patch)``; a ``.postN`` counts as its release."""

CASSETTE_RELEASE: Release = (1, 106, 2)
"""The release every cassette was recorded with: the ``dev`` extra's pin (a test holds
the two together). Re-recording on another release is refused (``tests/cassettes.py``)."""


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
class Change:
    """A change in what LiteLLM sends, and the releases that have it.

    LiteLLM backports fixes to older lines, so a change has a first patch release per
    line, not one version after which it holds.

    Attributes:
        what: What LiteLLM sends differently, and where in its source.
        first_patch: For each ``(major, minor)`` line checked, the first patch release
            that has the change, or ``None`` when no release of the line has it.
        applies: Whether a request (URL path, parsed body) is one the change concerns.
        rewrite: A concerned body as a release *without* the change sends it, rewritten
            as a release *with* it sends it (a new object; the argument is not changed).
    """

    what: str
    first_patch: Mapping[tuple[int, int], int | None]
    applies: Callable[[str, Any], bool]
    rewrite: Callable[[Any], Any]

    def holds(self, release: Release | None = None) -> bool:
        """Whether ``release`` (default: the installed one) has the change."""
        release = litellm_version() if release is None else release
        line = release[:2]
        if line not in self.first_patch:
            checked = ", ".join(f"{a}.{b}" for a, b in sorted(self.first_patch))
            raise UnknownRelease(
                f"LiteLLM {_text(release)}: {self.what!r} was checked for {checked} only; "
                f"look it up in {line[0]}.{line[1]}'s source and add the line to "
                "tests/litellm_version.py"
            )
        first = self.first_patch[line]
        return first is not None and release[2] >= first


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
        "set none (1.106's VertexGeminiConfig.map_openai_params added it; removed in 1.108.0)"
    ),
    first_patch={(1, 106): None, (1, 108): 0, (1, 109): 0},
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
        "_SYSTEM_INPUT_PROVIDERS; backported to 1.106.11, 1.108.12, 1.109.2)"
    ),
    first_patch={(1, 106): 11, (1, 108): 12, (1, 109): 2},
    # Written for one leading string system message, the only kind the cassettes hold;
    # several would have been joined into one `instructions` and need more than this.
    applies=_is_bridged_responses_request,
    rewrite=_system_as_input_item,
)

CHANGES: tuple[Change, ...] = (GEMINI_3_NO_DEFAULT_TEMPERATURE, RESPONSES_SYSTEM_AS_INPUT)
"""Every change between :data:`CASSETTE_RELEASE` and a release the tests run on."""


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
