"""Which wire protocol a LiteLLM provider speaks: data, looked up by pure functions.

Signatures and tool-call ids are valid only within one protocol, so provenance and
target resolution both need the protocol, not just the vendor key.
"""

from __future__ import annotations

from typing import Final

from ._messages import Api

__all__ = ["API_BY_PROVIDER", "VERTEX_PARTNER_PREFIXES", "api_for"]

API_BY_PROVIDER: Final[dict[str, Api]] = {
    "anthropic": "anthropic-messages",
    "anthropic_text": "anthropic-messages",
    "vertex_ai-anthropic_models": "anthropic-messages",
    "bedrock": "bedrock-converse",
    "bedrock_converse": "bedrock-converse",
    "sagemaker": "openai-compatible",
    "gemini": "gemini",
    "vertex_ai": "gemini",
    "vertex_ai_beta": "gemini",
    "vertex_ai-language-models": "gemini",
    "openai": "openai-chat",
    "azure": "openai-chat",
    "azure_ai": "openai-compatible",
    "text-completion-openai": "openai-chat",
    "mistral": "mistral",
    "codestral": "mistral",
    "text-completion-codestral": "mistral",
}
"""LiteLLM provider key to wire protocol. Providers not listed speak an
OpenAI-compatible dialect (groq, deepseek, xai, together_ai, fireworks_ai, ollama,
vllm, openrouter, cerebras...)."""


VERTEX_PARTNER_PREFIXES: Final = (
    "meta/",
    "deepseek-ai",
    "mistral",
    "codestral",
    "jamba",
    "qwen",
    "openai/gpt-oss-",
    "minimaxai/",
    "moonshotai/",
    "zai-org/",
    "google/gemma-",
)
"""Vertex AI model names LiteLLM serves as partner models through OpenAI-compatible
endpoints, not Gemini's API (``VertexAIPartnerModels.is_vertex_partner_model``, Claude
aside: it speaks Anthropic Messages there)."""


def api_for(provider: str | None, model: str | None = None) -> Api:
    """The wire protocol of ``provider`` (a LiteLLM provider key) serving ``model``.

    Claude behind Vertex AI and Azure AI Foundry speaks Anthropic Messages, and Vertex
    AI's other partner models (Llama, Mistral, Qwen...) an OpenAI-compatible dialect;
    Claude behind Bedrock still speaks Converse. Unknown providers are assumed
    OpenAI-compatible; no provider at all is ``unknown``.
    """
    if provider is None:
        return "unknown"
    model_id = (model or "").lower()
    if provider in ("vertex_ai", "vertex_ai_beta"):
        if "claude" in model_id:
            return "anthropic-messages"
        if model_id.startswith(VERTEX_PARTNER_PREFIXES):
            return "openai-compatible"
    if provider == "azure_ai" and "claude" in model_id:
        return "anthropic-messages"  # LiteLLM's Azure Anthropic handler: {api_base}/anthropic
    if provider == "bedrock" and model_id.startswith("invoke/"):
        return "anthropic-messages" if "claude" in model_id else "openai-compatible"
    if provider in ("openai", "azure") and model_id.startswith("responses/"):
        return "openai-responses"
    return API_BY_PROVIDER.get(provider, "openai-compatible")
