"""LiteLLM's wire conventions that every request shape shares, each stated once.

The request shapes (``_openai``, ``_anthropic``, ``_responses``) read and write their own
messages; what they have in common is written here: the keys LiteLLM adds to an
assistant message, hygiene's own stamp key, and the form in which LiteLLM carries a
Gemini thought signature inside a tool-call id. The rules never import this package:
they see these facts through :mod:`litellm_hygiene._view`.
"""
