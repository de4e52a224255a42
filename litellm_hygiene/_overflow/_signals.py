"""The declarative table of context-overflow signals, and the look-alikes excluded first.

Every provider words "your prompt does not fit" differently, and several word *other*
limits (tokens per minute, output caps, byte sizes) in nearly the same terms. Detection
is therefore one ordered table, read top to bottom, first hit wins:

1. ``exclude`` rows (:data:`._lookalikes.LOOKALIKES`, kept in their own module for
   size): look-alikes that are never a context overflow (HTTP 429, rate and
   quota limits, "please wait" throttling, ``max_tokens`` above the output cap). They
   come first so a throttling message that happens to say "too many tokens" is never
   misread as an overflow.
2. Structured rows: machine-readable error codes (``context_length_exceeded``) and
   provider stop reasons (``model_context_window_exceeded``). Codes are stable across
   rewordings, so they outrank prose.
3. Text rows: one pattern per provider dialect, specific before generic.
4. Status rows: an HTTP status alone (a body-less 413).

Each row names the providers whose wording it covers; the tests hold a real fixture
message for every row. Patterns are matched case-insensitively against error text whose
whitespace and JSON escapes were normalised (see :mod:`._evidence`).
"""

from __future__ import annotations

from ._lookalikes import LOOKALIKES
from ._signal import FILLER, LENGTH_STOP_FILL_PERCENT, NUMBER, Dialect, Signal, Verdict, rx

__all__ = [
    "LENGTH_STOP_FILL_PERCENT",
    "LOOKALIKES",
    "SIGNALS",
    "Dialect",
    "Signal",
    "Verdict",
]

SIGNALS: tuple[Signal, ...] = (
    *LOOKALIKES,
    # 2. Structured signals: codes and stop reasons.
    Signal(
        "context_length_exceeded",
        "error_code",
        ("openai", "azure", "groq", "deepseek", "openrouter"),
        "OpenAI's error code for an over-long prompt, copied by compatible servers.",
        codes=frozenset(
            {"context_length_exceeded", "context_window_exceeded", "model_context_window_exceeded"}
        ),
    ),
    Signal(
        "litellm_context_window_exceeded",
        "error_code",
        ("litellm",),
        "LiteLLM already mapped the provider error to ContextWindowExceededError.",
        codes=frozenset({"contextwindowexceedederror"}),
    ),
    Signal(
        "exceed_context_size_error",
        "error_code",
        ("llamacpp",),
        "llama.cpp server's error type when the prompt exceeds n_ctx.",
        codes=frozenset({"exceed_context_size_error"}),
    ),
    Signal(
        "model_max_prompt_tokens_exceeded",
        "error_code",
        ("github_copilot",),
        "GitHub Copilot's error code for a prompt above the model's prompt limit.",
        codes=frozenset({"model_max_prompt_tokens_exceeded"}),
    ),
    Signal(
        "tokens_limit_reached",
        "error_code",
        ("github",),
        "GitHub Models (Azure AI inference) answer an over-long prompt with 413 and code "
        "tokens_limit_reached: 'Request body too large for gpt-4o model. Max size: 8000 "
        "tokens.' The limit is in tokens, so it is an overflow, not a byte-size error.",
        codes=frozenset({"tokens_limit_reached"}),
    ),
    Signal(
        "request_too_large_code",
        "request_too_large",
        ("anthropic", "openai"),
        "A byte-size limit (Anthropic 413 request_too_large, OpenAI per-string "
        "string_above_max_length): a separate kind, shrink the payload not the tokens.",
        codes=frozenset({"request_too_large", "payload_too_large", "string_above_max_length"}),
    ),
    Signal(
        "model_context_window_exceeded",
        "stop_reason",
        ("anthropic", "bedrock", "zai"),
        "A successful response that stopped because the window filled up; LiteLLM folds "
        "this stop reason into an ordinary finish_reason.",
        stop_reasons=frozenset({"model_context_window_exceeded"}),
    ),
    # 3. Text patterns, specific dialects first.
    Signal(
        "anthropic_prompt_too_long",
        "error_pattern",
        ("anthropic", "bedrock", "vertex_ai"),
        "Anthropic (also through Bedrock and Vertex): 'prompt is too long: N tokens > M'.",
        pattern=rx(r"\bprompt is too long\b(?:: (?P<tokens>\d+) tokens > (?P<limit>\d+))?"),
    ),
    Signal(
        "openai_maximum_context_length",
        "error_pattern",
        ("openai", "azure", "deepseek", "vllm", "openrouter"),
        "OpenAI's 'This model's maximum context length is N tokens', echoed by Azure, "
        "DeepSeek, vLLM and OpenRouter ('This endpoint's ...').",
        pattern=rx(
            r"maximum context length is (?P<limit>\d+)(?: tokens)?(?:[.,] (?:however,? )?"
            r"(?:your messages resulted in|you requested(?: about)?|your request has) "
            r"(?P<tokens>\d+))?"
        ),
    ),
    Signal(
        "mistral_too_large_for_model",
        "error_pattern",
        ("mistral",),
        "Mistral: 'Prompt contains N tokens ... too large for model with M maximum context "
        "length'; LiteLLM does not map it.",
        pattern=rx(
            r"(?:prompt contains (?P<tokens>\d+) tokens\b.{0,40}?)?too large for model with "
            r"(?P<limit>\d+) maximum context length"
        ),
    ),
    Signal(
        "gemini_input_token_count",
        "error_pattern",
        ("gemini", "vertex_ai"),
        "Gemini/Vertex: 'The input token count (N) exceeds the maximum number of tokens "
        "allowed (M)', and Vertex's older 'input token count is N but model only supports "
        "up to M'.",
        pattern=rx(
            r"input token count \((?P<tokens>\d+)\) exceeds the maximum number of tokens"
            r"(?: allowed \((?P<limit>\d+)\))?",
            r"exceeds the maximum number of (?:input )?tokens allowed",
            r"input token count is \d+ but (?:the )?model only supports up to \d+",
        ),
    ),
    Signal(
        "bedrock_mantle_prompt_tokens",
        "error_pattern",
        ("bedrock",),
        "Bedrock Mantle: 'prompt tokens (N) exceed model maximum (M)'.",
        pattern=rx(r"prompt tokens \((?P<tokens>\d+)\) exceed model maximum \((?P<limit>\d+)\)"),
    ),
    Signal(
        "copilot_prompt_token_count",
        "error_pattern",
        ("github_copilot", "fireworks_ai", "litellm"),
        "Copilot 'prompt token count of N exceeds the limit of M'; Fireworks/LiteLLM "
        "'Requested token count exceeds the model's maximum context length'. An output "
        "or completion token count over its limit is an output cap, not the prompt.",
        pattern=rx(
            rf"(?<!output )(?<!completion )\btoken count\b(?: of (?P<tokens>{NUMBER}))?"
            rf"[^.;]{{0,30}}?\bexceeds?\b(?: the limit of (?P<limit>{NUMBER}))?"
        ),
    ),
    Signal(
        "copilot_exceeds_the_limit",
        "error_pattern",
        ("github_copilot",),
        "The tail of Copilot's wording alone, 'exceeds the limit of M': all pi's detector "
        "asks of a Copilot overflow. Alone it is ambiguous (a file, an image, a rate or "
        "max_tokens 'exceeds the limit of' too), so it counts only when nothing else can "
        "be what exceeds: the clause opens the message (a body's message, or the text "
        "after an error label: LiteLLM's 'Github_copilotException - ', 'Error: ') or its "
        "subject is the prompt itself (prompt, input, context, conversation, optionally "
        "'... tokens'); and the limit is a bare count, or a count of tokens, that ends "
        "the clause ('10MB', '5 MB', '60 per minute', '1.5 GB' name another unit).",
        pattern=rx(
            r"(?:^\W*|(?:error|exception|failed)\W{1,3}|\b(?:prompt|input|context|conversation)"
            rf"(?: tokens?)? )exceeds the limit of (?P<limit>{NUMBER})(?: tokens?)?"
            r"(?![.,]\d)(?=\s*$|[.,;:!?\"')\]}])"
        ),
    ),
    Signal(
        "kimi_model_token_limit",
        "error_pattern",
        ("moonshot",),
        "Kimi/Moonshot: 'Your request exceeded model token limit: M (requested: N)'.",
        pattern=rx(
            r"exceed(?:s|ed)? (?:the )?model(?:'s)? (?:token|context) limit"
            r"(?:: (?P<limit>\d+)(?: \(requested: (?P<tokens>\d+)\))?)?"
        ),
    ),
    Signal(
        "xai_maximum_prompt_length",
        "error_pattern",
        ("xai",),
        "xAI: 'This model's maximum prompt length is M but the request contains N tokens'.",
        pattern=rx(
            r"max(?:imum)? prompt (?:length|size) is (?P<limit>\d+)"
            r"(?: but the request contains (?P<tokens>\d+) tokens)?",
            r"max(?:imum)? prompt (?:length|size|tokens)\b",
        ),
    ),
    Signal(
        "cerebras_current_length",
        "error_pattern",
        ("cerebras",),
        "Cerebras: 'Current length is N while limit is M'.",
        pattern=rx(r"current length is (?P<tokens>\d+) while limit is (?P<limit>\d+)"),
    ),
    Signal(
        "tgi_inputs_tokens",
        "error_pattern",
        ("huggingface", "together_ai"),
        "Text Generation Inference: '`inputs` tokens + `max_new_tokens` must be <= M' and "
        "'`inputs` must have less than M tokens'.",
        pattern=rx(
            r"`?inputs`? tokens \+ `?max_new_tokens`? must be <= (?P<limit>\d+)",
            r"`?inputs`? must have less than \d+ tokens",
        ),
    ),
    Signal(
        "dashscope_input_length_range",
        "error_pattern",
        ("dashscope",),
        "Alibaba DashScope/Qwen: 'Range of input length should be [1, M]'.",
        pattern=rx(r"range of input length should be \[1, ?(?P<limit>\d+)\]"),
    ),
    Signal(
        "lm_studio_context_overflow",
        "error_pattern",
        ("lm_studio", "llamacpp"),
        "LM Studio and llama.cpp runtimes: 'context the overflows', 'loaded with context "
        "length of only M tokens', 'n_keep (N) >= n_ctx (M)'.",
        pattern=rx(
            r"\bcontext (?:the )?overflows?\b",
            r"loaded with context length of only (?P<limit>\d+)",
            r"n_keep\W*(?P<tokens>\d+)\W*>=\s*n_ctx\W*\d+",
        ),
    ),
    Signal(
        "ollama_truncating_prompt",
        "error_pattern",
        ("ollama",),
        "Ollama's chat runner truncates silently and logs 'truncating input prompt'.",
        pattern=rx(r"truncating input prompt\W*(?:limit=(?P<limit>\d+) prompt=(?P<tokens>\d+))?"),
    ),
    Signal(
        "exceeds_context_window",
        "error_pattern",
        ("generic", "openai", "ollama", "llamacpp", "anthropic"),
        "Wording shared by many servers: '... exceeds the context window', 'exceeded max "
        "context length', 'exceeds the available context size', 'exceed context limit'.",
        pattern=rx(
            rf"\bexceed(?:s|ed|ing)?\b{FILLER} context[ _-]?(?:window|length|size|limit)\b",
            r"\bcontext[ _-]?(?:window|length|size|limit)\b[^.;]{0,20}?\bexceed",
        ),
    ),
    Signal(
        "longer_than_context",
        "error_pattern",
        ("together_ai", "vllm", "lm_studio", "sambanova"),
        "'longer than the model's context length' (Together), 'longer than the maximum "
        "model length' (vLLM), 'greater than the context length' (LM Studio).",
        pattern=rx(
            rf"\b(?:longer|greater|larger|more) than{FILLER}"
            r" (?:context|model|sequence) (?:length|window|size)\b",
            r"maximum supported sequence length",
        ),
    ),
    Signal(
        "tokens_over_limit",
        "error_pattern",
        ("generic", "vllm", "lm_studio", "fireworks_ai", "together_ai"),
        "Structural: two token counts, the request's above the limit, in any wording "
        "('Input length 131393 exceeds the maximum allowed input length of 131040 tokens', "
        "'Prompt has 256,468 tokens, but the configured context size is 256,000 tokens'). "
        "It fires only when the first count is the larger.",
        pattern=rx(
            rf"\b(?:input|prompt|request|context|messages?)(?: length)?(?: has| contains| of| is)?"
            rf" (?P<tokens>{NUMBER})(?: tokens?)?,?[^.;]{{0,20}}? (?:exceeds?|but|is (?:more|"
            rf"greater|larger) than|>)\b[^.;\d]{{0,80}}?"
            rf"\b(?:limit|maximum|max|context|window|size|length|allowed)\b[^.;\d]{{0,30}}?"
            rf"(?P<limit>{NUMBER})",
        ),
        exceeds=True,
    ),
    Signal(
        "token_limit_exceeded",
        "error_pattern",
        ("generic",),
        "'token limit exceeded', bare (rate-limit wordings were excluded above).",
        pattern=rx(r"\b(?:input |prompt |context )?token limit (?:was )?exceeded\b"),
    ),
    Signal(
        "too_many_tokens",
        "error_pattern",
        ("cohere", "bedrock", "ai21"),
        "Cohere 'too many tokens: size limit exceeded', AI21 'Prompt has too many tokens', "
        "Bedrock 'Too many input tokens' (throttling look-alikes were excluded above).",
        pattern=rx(r"\btoo many (?:input |prompt |total )?tokens\b"),
    ),
    Signal(
        "input_tokens_exceed",
        "error_pattern",
        ("bedrock", "watsonx", "generic"),
        "Bedrock Nova 'Input Tokens Exceeded', watsonx 'input tokens N cannot exceed', "
        "'input tokens exceed the configured limit'.",
        pattern=rx(
            r"\b(?:input|prompt)[ _]tokens?\b[^.;]{0,40}?\bexceed",
            r"\bnumber of (?:input |prompt )?tokens\b[^.;]{0,40}?\bexceed",
        ),
    ),
    Signal(
        "input_too_long",
        "error_pattern",
        ("bedrock", "vllm", "generic"),
        "Bedrock 'Input is too long for requested model', vLLM 'Input prompt (N tokens) is "
        "too long', Ollama 'prompt too long', 'prompt exceeds max length'.",
        pattern=rx(
            r"\b(?:input|prompt|context|conversation|messages?)\b(?: \([^)]*\))?"
            r"[^.;]{0,12}? (?:is|are) too long\b",
            r"\b(?:prompt|input) too long\b",
            r"\b(?:prompt|input)\b[^.;]{0,30}?\bexceeds? (?:the )?max(?:imum)? "
            r"(?:input |prompt |context |allowed )?(?:length|tokens|context)",
            r"expected maxlength: ?\d+, actual: ?\d+",
            r"\binput (?:text )?length should not exceed\b",
        ),
    ),
    Signal(
        "reduce_length",
        "error_pattern",
        ("groq", "openai", "cerebras"),
        "Groq answers with only 'Please reduce the length of the messages or completion'.",
        pattern=rx(r"reduce the length of (?:the |your |either )?(?:messages|prompt|input|one)"),
    ),
    Signal(
        "cerebras_no_body",
        "error_pattern",
        ("cerebras",),
        "Cerebras rejects an over-long prompt with an empty 400 body, which the OpenAI SDK "
        "reports as '400 status code (no body)'.",
        pattern=rx(r"\b400 status code \(no body\)"),
        only_for=frozenset({"cerebras"}),
    ),
    Signal(
        "github_models_max_size",
        "error_pattern",
        ("github",),
        "GitHub Models' 413 text 'Request body too large for <model> model. Max size: N "
        "tokens.': worded like a byte limit, counted in tokens.",
        pattern=rx(r"\btoo large for [^.]{1,60}? model\. max size: (?P<limit>\d+) tokens"),
    ),
    Signal(
        "request_too_large_text",
        "request_too_large",
        ("anthropic", "vertex_ai", "generic"),
        "Byte-size limits: Anthropic 'Request exceeds the maximum size', Vertex 'Request "
        "payload size exceeds the limit', proxies' 413 Payload Too Large.",
        pattern=rx(
            r"request exceeds the maximum (?:allowed )?size",
            r"(?:request|payload) (?:payload )?size exceeds the (?:limit|maximum)",
            r"\b(?:payload|request entity|request body|entity|request) (?:is )?too large\b",
            r"\b413\b (?:status code|request entity too large|payload too large)",
        ),
    ),
    # 4. Status alone.
    Signal(
        "http_413",
        "request_too_large",
        ("generic",),
        "413 Payload Too Large with no recognisable body is a byte-size limit.",
        status=413,
    ),
)
"""The signal table, in precedence order (first hit wins)."""
