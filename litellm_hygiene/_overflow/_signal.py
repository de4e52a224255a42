"""The shape of one overflow signal, and the vocabulary its rows are written in.

Kept apart from the rows so the two halves of the table (:mod:`._lookalikes` and
:mod:`._signals`) can share it; see :mod:`._signals` for how the table is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "FILLER",
    "LENGTH_STOP_FILL_PERCENT",
    "NUMBER",
    "WORDING_ONLY",
    "Dialect",
    "Signal",
    "Verdict",
    "rx",
]

Dialect = Literal[
    "ai21",
    "anthropic",
    "azure",
    "bedrock",
    "cerebras",
    "cohere",
    "dashscope",
    "deepseek",
    "fireworks_ai",
    "gemini",
    "generic",
    "github",
    "github_copilot",
    "groq",
    "huggingface",
    "litellm",
    "llamacpp",
    "lm_studio",
    "minimax",
    "mistral",
    "moonshot",
    "ollama",
    "openai",
    "openrouter",
    "sambanova",
    "together_ai",
    "vertex_ai",
    "vllm",
    "watsonx",
    "xai",
    "zai",
]
"""A provider wording family, named by LiteLLM's provider key (``custom_llm_provider``,
what :attr:`TargetModel.provider <litellm_hygiene.TargetModel.provider>` holds), so a
provider hint from an exception's ``llm_provider`` lines up with a row; the names no
provider key has are :data:`WORDING_ONLY`."""

WORDING_ONLY: tuple[Dialect, ...] = ("generic", "litellm", "llamacpp")
"""Wording families no LiteLLM provider key names: ``generic``, wording shared by many
OpenAI-compatible servers; ``litellm``, LiteLLM's own; ``llamacpp``, llama.cpp's server,
reached as an OpenAI-compatible one."""

Verdict = Literal["exclude", "error_code", "stop_reason", "error_pattern", "request_too_large"]
"""What a matching row means: ``exclude`` stops detection with "not an overflow"; the
other values become :attr:`Overflow.kind <litellm_hygiene.Overflow.kind>`."""

LENGTH_STOP_FILL_PERCENT = 99
"""A ``length`` stop with no output counts as an overflow once the input fills this
share of the window: the provider had no room left to write a single token."""


@dataclass(frozen=True)
class Signal:
    """One row of the table: how to recognise a signal and what it means.

    A row fires when any of its matchers hits: a structured code, a raw stop reason, its
    pattern, or its HTTP status. Codes also match as whole identifiers inside error text,
    because wrappers often flatten a JSON body into prose.

    Attributes:
        name: Stable identifier, reported as :attr:`Overflow.signal`.
        verdict: What a hit means.
        providers: The wording families this row covers, most typical first.
        pattern: Text pattern searched in the normalised error text.
        codes: Error codes, error types or exception class names, lower case.
        stop_reasons: Raw provider stop/finish reasons, lower case.
        status: HTTP status this row recognises on its own.
        only_for: When set, the row fires only if the provider is unknown or listed
            here; for signals too bare to trust from any provider.
        exceeds: A structural row: it fires only when its pattern captured both numbers
            and the request's (``tokens``) is above the limit (``limit``).
        why: Why the row exists, in words.
    """

    name: str
    verdict: Verdict
    providers: tuple[Dialect, ...]
    why: str
    pattern: re.Pattern[str] | None = None
    codes: frozenset[str] = frozenset()
    stop_reasons: frozenset[str] = frozenset()
    status: int | None = None
    only_for: frozenset[str] = frozenset()
    exceeds: bool = False


def rx(*alternatives: str) -> re.Pattern[str]:
    """Compile alternatives into one case-insensitive pattern, each kept grouped."""
    return re.compile("|".join(f"(?:{a})" for a in alternatives), re.IGNORECASE)


# Filler words allowed between "exceeds" and "context window" ("exceeds the model's
# maximum context length"); kept to a closed list so the pattern stays precise.
FILLER = r"(?: (?:the|this|its|your|model'?s?|available|maximum|max|allowed|specified))*"

NUMBER = r"\d{1,3}(?:[,_ ]\d{3})+(?!\d)|\d+"
"""A token count as providers print it: with or without thousands separators."""
