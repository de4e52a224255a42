"""Generated Anthropic Messages requests (``messages`` and ``system``), for property tests.

The requests Claude Code sends and the odd ones a client may: string and list content,
thinking (signed, unsigned, redacted) before and after other blocks, tool use with
``toolu_`` ids and LiteLLM's Gemini ids, several results in one user message with text
before or after them, results with error flags and list content, images by data and by
URL, documents and server tool blocks the neutral model does not interpret, prompt
caching markers, and unknown keys anywhere.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

__all__ = ["anthropic_requests", "assistant_turns", "system_prompts", "user_turns"]

_SIGNATURE = "EqQBCkgIAxABGAIiQL0t1cJmUMqzNvJ0MPLKbFQyB7gqEpOPh0hY0y4xeA=="
_GEMINI = "CiQBVKhc7mO4GPk1KLSHYaBB4gK1dAAYD4sAj1x0qQ4rFO0+iRoKWgFUqFzu"

texts = st.sampled_from(["", " ", "done", "Let me look.", "résumé ✓", "line\nbreak"])
ids = st.sampled_from(
    [
        "toolu_01A",
        "toolu_01B",
        "toolu_01C",
        "call_abc",
        f"call_abc__thought__{_GEMINI}",
        "functions.Bash:0",
        "tooluse_X1",
    ]
)
cache = st.sampled_from([{"type": "ephemeral"}, {"type": "ephemeral", "ttl": "1h"}])
odd_keys = st.dictionaries(
    st.sampled_from(["citations", "x_note", "meta"]), st.integers(), max_size=1
)


def _with(block: dict[str, Any], draw: Any) -> dict[str, Any]:
    if draw(st.booleans()):
        block["cache_control"] = draw(cache)
    block.update(draw(odd_keys))
    return block


@st.composite
def text_blocks(draw: Any) -> dict[str, Any]:
    return _with({"type": "text", "text": draw(texts)}, draw)


@st.composite
def image_blocks(draw: Any) -> dict[str, Any]:
    source = draw(
        st.sampled_from(
            [
                {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
                {"type": "url", "url": "https://example.com/a.png"},
                {"type": "file", "file_id": "file_01"},
            ]
        )
    )
    return _with({"type": "image", "source": dict(source)}, draw)


def _fresh(block: dict[str, Any]) -> dict[str, Any]:
    return dict(block)


_OPAQUE_USER: list[dict[str, Any]] = [
    {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x"}},
    {"type": "search_result", "source": "s", "title": "t", "content": []},
    {"type": "container_upload", "file_id": "f"},
]
opaque_user_blocks = st.sampled_from(_OPAQUE_USER).map(_fresh)


@st.composite
def thinking_blocks(draw: Any) -> dict[str, Any]:
    kind = draw(st.sampled_from(["signed", "unsigned", "redacted", "empty"]))
    if kind == "redacted":
        return _with({"type": "redacted_thinking", "data": "EmwKAhgBEgy3va"}, draw)
    block: dict[str, Any] = {"type": "thinking", "thinking": "" if kind == "empty" else "hmm"}
    if kind in ("signed", "empty"):
        block["signature"] = draw(st.sampled_from([_SIGNATURE, "", _GEMINI]))
    return _with(block, draw)


@st.composite
def tool_use_blocks(draw: Any) -> dict[str, Any]:
    block = {
        "type": "tool_use",
        "id": draw(ids),
        "name": draw(st.sampled_from(["Bash", "Read"])),
        "input": draw(st.sampled_from([{}, {"command": "ls"}, {"n": 1.5, "l": [1, "a"]}])),
    }
    return _with(block, draw)


_SERVER: list[dict[str, Any]] = [
    {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {}},
    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []},
]
server_blocks = st.sampled_from(_SERVER).map(_fresh)


@st.composite
def tool_results(draw: Any) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": draw(ids)}
    content = draw(st.sampled_from(["string", "list", "absent", "empty"]))
    if content == "string":
        block["content"] = draw(texts)
    elif content == "list":
        block["content"] = draw(st.lists(st.one_of(text_blocks(), image_blocks()), max_size=2))
    elif content == "empty":
        block["content"] = []
    if draw(st.booleans()):
        block["is_error"] = draw(st.booleans())
    return _with(block, draw)


@st.composite
def user_turns(draw: Any) -> dict[str, Any]:
    if draw(st.integers(0, 4)) == 0:
        return {"role": "user", "content": draw(texts)}
    other = st.one_of(text_blocks(), image_blocks(), opaque_user_blocks)
    blocks = draw(st.lists(st.one_of(tool_results(), other), max_size=4))
    message: dict[str, Any] = {"role": "user", "content": blocks}
    if draw(st.integers(0, 9)) == 0:
        message["x_client"] = "kept"
    return message


@st.composite
def assistant_turns(draw: Any) -> dict[str, Any]:
    if draw(st.integers(0, 4)) == 0:
        return {"role": "assistant", "content": draw(texts)}
    leading = draw(st.lists(thinking_blocks(), max_size=2))
    rest = draw(
        st.lists(
            st.one_of(text_blocks(), tool_use_blocks(), thinking_blocks(), server_blocks),
            max_size=4,
        )
    )
    return {"role": "assistant", "content": leading + rest}


@st.composite
def system_turns(draw: Any) -> dict[str, Any]:
    """A system message inside ``messages``, as Claude Code sends them."""
    if draw(st.booleans()):
        return {"role": "system", "content": draw(texts)}
    return {"role": "system", "content": draw(st.lists(text_blocks(), min_size=1, max_size=2))}


system_prompts = st.one_of(
    st.none(),
    texts,
    st.lists(st.one_of(text_blocks(), st.just({"type": "image", "x": 1})), max_size=2),
)


@st.composite
def anthropic_requests(draw: Any) -> tuple[list[dict[str, Any]], Any]:
    """``(messages, system)``; ``system`` ``None`` when the request has none."""
    turn = st.one_of(
        user_turns(), assistant_turns(), user_turns(), assistant_turns(), system_turns()
    )
    turns = draw(st.lists(turn, min_size=1, max_size=6))
    return turns, draw(system_prompts)
