"""The LiteLLM integration: the callback, the provenance store, the SDK wrappers.

This subpackage is the only place that imports LiteLLM's callback machinery
(``CustomLogger``, ``Router``, the proxy's hook types) or talks to Redis. The model,
the converters and the passes know nothing of hooks.
"""
