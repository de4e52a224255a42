"""Look-alike errors that are never a context overflow: the first rows of the table.

Rate limits, quotas, throttling and output caps talk about tokens and "too large" much
like an overflow does. Trimming the history fixes none of them, and a false alarm would
make the caller throw away context for nothing, so these rows come before every
overflow row and stop detection with "no overflow".
"""

from __future__ import annotations

from ._signal import Signal, rx

__all__ = ["LOOKALIKES"]

LOOKALIKES: tuple[Signal, ...] = (
    Signal(
        "http_429",
        "exclude",
        ("generic",),
        "429 is always a rate or quota limit; retrying later fixes it, trimming does not.",
        pattern=rx(
            r"\b(?:error|status)(?:[ _]code)?\W{0,3}429\b",
            r"^\W*429\b",
            r"\b429 too many requests",
            r"<429>",
        ),
        status=429,
    ),
    Signal(
        "rate_limit",
        "exclude",
        ("openai", "anthropic", "bedrock", "gemini", "vertex_ai"),
        "Rate limits and throttling mention tokens and 'request too large' but are "
        "about throughput, not the window.",
        pattern=rx(r"rate[ _-]?limit", r"too many requests", r"throttl", r"resource exhausted"),
        codes=frozenset(
            {
                "rate_limit_exceeded",
                "rate_limit_error",
                "ratelimiterror",
                "throttlingexception",
                "throttling_error",
                "resource_exhausted",
                "too_many_requests",
            }
        ),
    ),
    Signal(
        "time_window_quota",
        "exclude",
        ("openai", "groq", "anthropic"),
        "Tokens per minute/day are account throughput tiers (OpenAI/Groq 'Request too "
        "large ... TPM'), not the model's context window.",
        pattern=rx(
            r"\bper (?:min(?:ute)?|hour|day|second|sec)\b",
            r"\b(?:tpm|rpm|tpd|rpd|itpm|otpm)\b",
            r"\bdaily\b[^.]{0,20}\b(?:limit|quota)",
        ),
    ),
    Signal(
        "quota_or_billing",
        "exclude",
        ("openai", "openrouter", "litellm"),
        "Quotas, credits and budgets are spent money, not context; 402 is payment.",
        pattern=rx(r"\bquota\b", r"\bcredits?\b", r"\bbudget\b", r"payment required"),
        codes=frozenset({"insufficient_quota", "budgetexceedederror"}),
        status=402,
    ),
    Signal(
        "please_wait",
        "exclude",
        ("bedrock",),
        "Bedrock throttles with 'Too many tokens, please wait before trying again'.",
        pattern=rx(
            r"please wait",
            r"slow down",
            r"wait before (?:trying|retrying)",
            r"try again (?:later|in \d)",
            r"retry[ -]after",
        ),
    ),
    Signal(
        "output_cap",
        "exclude",
        ("anthropic", "openai", "groq", "ollama", "gemini", "dashscope", "huggingface"),
        "max_tokens above the model's output limit is an output setting error: trimming "
        "the history would not help.",
        pattern=rx(
            r"(?<!\+ )(?<!\+ `)\bmax_(?:new_|completion_|output_)?tokens\W{0,3}\s*"
            r"(?:must|should) be (?:less than|<=|at most|smaller|lower)",
            r"\bmax_(?:completion_|output_)?tokens\b[^.]{0,100}?\b(?:maximum|max|limit|at most)"
            r"\b[^.]{0,40}?\b(?:output|completion) tokens",
            r"supports at most \d+ (?:output|completion) tokens",
            r"maximum (?:allowed )?(?:number of )?output tokens",
            r"\bmaxoutputtokens value\b",
            r"range of max_tokens",
        ),
    ),
    Signal(
        "batch_limit",
        "exclude",
        ("mistral", "llamacpp"),
        "Embedding batch limits ('Too many tokens in batch') cap one batch, not a context.",
        pattern=rx(r"tokens in (?:the )?batch", r"physical batch size"),
    ),
    Signal(
        "parameter_string_length",
        "exclude",
        ("openai",),
        "A too-long string in a parameter other than the conversation (the 64-character "
        "'user' field, a tool description) is a configuration error.",
        pattern=rx(r"invalid '(?!messages|input|prompt)[^']*'[^.]{0,10}string too long"),
    ),
    Signal(
        "tool_id_too_long",
        "exclude",
        ("openai", "azure"),
        "A tool-call id over its length limit ('messages[11].tool_calls[0].id': string too "
        "long. Expected a string with maximum length 40') is an id error; LiteLLM maps it "
        "to ContextWindowExceededError, so it is excluded before LiteLLM's own class.",
        pattern=rx(
            r"invalid '(?:messages\[\d+\]\.tool_calls\[\d+\]\.id|messages\[\d+\]"
            r"\.tool_call_id|input\[\d+\]\.(?:call_id|id))'[^.]{0,10}string too long"
        ),
    ),
)
"""Exclusion rows, checked before any overflow signal."""
