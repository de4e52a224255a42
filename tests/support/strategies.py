"""Hypothesis strategies for OpenAI-shaped transcripts as LiteLLM users send them."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from litellm_hygiene import STAMP_KEY

Json = Any

text = st.text(max_size=12)
ids = st.one_of(
    st.from_regex(r"call_[A-Za-z0-9]{4,10}", fullmatch=True),
    st.from_regex(r"toolu_[A-Za-z0-9]{6,12}", fullmatch=True),
    st.from_regex(r"[A-Za-z0-9]{9}", fullmatch=True),
    st.from_regex(r"call_[a-z0-9]{4}__thought__[A-Za-z0-9+/=]{0,8}", fullmatch=True),
    st.from_regex(r"call_[a-z0-9]{4}\|fc_[A-Za-z0-9+/=]{4,12}", fullmatch=True),
    st.just(""),
)
leaves = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), text)
json_values: st.SearchStrategy[Json] = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=6,
)
extra_keys = st.dictionaries(
    st.sampled_from(["x_meta", "annotations", "refusal", "audio"]), json_values, max_size=2
)
cache_control = st.sampled_from([{"type": "ephemeral"}, {"type": "ephemeral", "ttl": "1h"}])


@st.composite
def with_optional(
    draw: st.DrawFn, /, base: dict[str, Any], **options: st.SearchStrategy[Any]
) -> dict[str, Any]:
    out = dict(base)
    for key, strategy in options.items():
        if draw(st.booleans()):
            out[key] = draw(strategy)
    out.update(draw(extra_keys))
    return out


def text_part() -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(lambda t: {"type": "text", "text": t}, text).flatmap(
        lambda p: with_optional(p, cache_control=st.none() | cache_control)
    )


def image_part() -> st.SearchStrategy[dict[str, Any]]:
    url = st.one_of(
        st.from_regex(
            r"data:image/(png|jpeg|webp);base64,[A-Za-z0-9+/]{0,12}={0,2}", fullmatch=True
        ),
        st.from_regex(r"https://example\.com/[a-z]{1,6}\.png", fullmatch=True),
        st.just("data:text/plain,hello"),
    )
    obj = url.flatmap(
        lambda u: with_optional(
            {"url": u}, detail=st.sampled_from(["auto", "low", "high"]), format=text
        )
    )
    return (
        st.one_of(obj, url)
        .map(lambda image: {"type": "image_url", "image_url": image})
        .flatmap(lambda p: with_optional(p, cache_control=cache_control))
    )


def other_part() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.builds(
            lambda d: {"type": "input_audio", "input_audio": {"data": d, "format": "wav"}}, text
        ),
        st.builds(lambda d: {"type": "file", "file": {"file_id": d}}, text),
        st.builds(lambda v: {"type": "brand_new_part", "payload": v}, json_values),
        st.builds(lambda v: {"no_type": v}, json_values),
    )


def content(parts: st.SearchStrategy[dict[str, Any]], *, nullable: bool) -> st.SearchStrategy[Any]:
    options: list[st.SearchStrategy[Any]] = [text, st.lists(parts, max_size=3)]
    if nullable:
        options.append(st.none())
    return st.one_of(*options)


def user_message() -> st.SearchStrategy[dict[str, Any]]:
    parts = st.one_of(text_part(), image_part(), other_part())
    return content(parts, nullable=True).flatmap(
        lambda c: with_optional(
            {"role": "user", "content": c}, name=st.none() | text, cache_control=cache_control
        )
    )


def system_message() -> st.SearchStrategy[dict[str, Any]]:
    return st.tuples(
        st.sampled_from(["system", "developer"]), content(text_part(), nullable=False)
    ).flatmap(
        lambda rc: with_optional(
            {"role": rc[0], "content": rc[1]}, name=text, cache_control=cache_control
        )
    )


def arguments() -> st.SearchStrategy[Any]:
    objects = st.dictionaries(text, json_values, max_size=3)
    return st.one_of(
        objects.map(json.dumps),
        objects.map(lambda o: json.dumps(o, indent=1)),
        objects.map(json.dumps).flatmap(lambda s: st.integers(0, len(s)).map(lambda n: s[:n])),
        text,
        objects,
    )


def tool_call() -> st.SearchStrategy[dict[str, Any]]:
    psf = st.one_of(
        st.builds(lambda s: {"thought_signature": s}, text),
        st.dictionaries(st.sampled_from(["thought_signature", "other"]), text, max_size=2),
    )

    def build(call_id: Any, name: str, args: Any, typed: bool) -> dict[str, Any]:
        call: dict[str, Any] = {"id": call_id, "function": {"name": name, "arguments": args}}
        if typed:
            call["type"] = "function"
        return call

    return (
        st.builds(build, ids | st.none(), text, arguments(), st.booleans())
        .flatmap(lambda c: with_optional(c, index=st.integers(0, 3), provider_specific_fields=psf))
        .flatmap(
            lambda c: st.one_of(
                st.just(c),
                psf.map(
                    lambda p: {**c, "function": {**c["function"], "provider_specific_fields": p}}
                ),
            )
        )
    )


def thinking_block() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.builds(
            lambda t, s: {"type": "thinking", "thinking": t, "signature": s}, text, text | st.none()
        ),
        st.builds(lambda t: {"type": "thinking", "thinking": t}, text),
        st.builds(lambda d: {"type": "redacted_thinking", "data": d}, text),
        st.builds(lambda v: {"type": "odd", "v": v}, json_values),
    )


def reasoning_item() -> st.SearchStrategy[dict[str, Any]]:
    summary = st.lists(st.builds(lambda t: {"type": "summary_text", "text": t}, text), max_size=2)
    return st.builds(
        lambda i, e, s: {"type": "reasoning", "id": i, "encrypted_content": e, "summary": s},
        text,
        text | st.none(),
        summary,
    )


def assistant_message() -> st.SearchStrategy[dict[str, Any]]:
    parts = st.one_of(text_part(), thinking_block(), other_part())
    stamp = st.fixed_dictionaries(
        {
            "provider": st.sampled_from(["anthropic", "gemini"]),
            "api": st.sampled_from(["gemini", "bogus"]),
            "model": text,
        }
    )
    psf = st.one_of(
        st.lists(text, min_size=1, max_size=2).map(lambda s: {"thought_signatures": s}),
        st.dictionaries(
            st.sampled_from(["citations", "thought_signatures"]), json_values, max_size=2
        ),
    )
    base = st.one_of(content(parts, nullable=True).map(lambda c: {"content": c}), st.just({}))
    return base.flatmap(
        lambda b: with_optional(
            {"role": "assistant", **b},
            tool_calls=st.lists(tool_call(), max_size=3) | st.none(),
            function_call=st.builds(lambda n, a: {"name": n, "arguments": a}, text, arguments())
            | st.none(),
            reasoning_content=text | st.none(),
            thinking_blocks=st.lists(thinking_block(), max_size=3) | st.none(),
            reasoning_items=st.lists(reasoning_item(), max_size=2),
            provider_specific_fields=psf | st.none(),
            name=text,
            cache_control=cache_control,
            **{STAMP_KEY: stamp},
        )
    )


def tool_message() -> st.SearchStrategy[dict[str, Any]]:
    parts = st.one_of(text_part(), image_part(), other_part())
    return st.builds(
        lambda i, c: {"role": "tool", "tool_call_id": i, "content": c},
        ids,
        content(parts, nullable=True),
    ).flatmap(lambda m: with_optional(m, name=text | st.none(), cache_control=cache_control))


def function_message() -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda n, c: {"role": "function", "name": n, "content": c}, text, text | st.none()
    ).flatmap(lambda m: with_optional(m, tool_call_id=ids | st.none()))


def message() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        system_message(), user_message(), assistant_message(), tool_message(), function_message()
    )


transcripts = st.lists(message(), max_size=8)


# -- targeted: agent transcripts at the edge of each rule --------------------------------

edge_ids = st.one_of(
    st.from_regex(r"[A-Za-z0-9]{8,10}", fullmatch=True),  # Mistral: 9 exactly
    st.from_regex(r"call_[A-Za-z0-9]{30,40}", fullmatch=True),  # OpenAI chat: 40 at most
    st.from_regex(r"toolu_[A-Za-z0-9]{20,26}", fullmatch=True),
    st.from_regex(r"call_[a-z0-9]{4}__thought__[A-Za-z0-9+/]{4}(==)?", fullmatch=True),
    st.from_regex(r"call_[a-z0-9]{4}\|fc_[A-Za-z0-9_]{2,62}", fullmatch=True),
    st.from_regex(r"tool[.:|][a-z]{2}", fullmatch=True),
    st.just(""),
)
edge_text = st.sampled_from(["", " ", "\n\t", "a", "ok"])
signatures = st.sampled_from(["c2ln", "c2lnbmF0dXJl", "msg_01abc", "", "c2ln="])
stamps = st.sampled_from(
    [
        {"provider": "anthropic", "api": "anthropic-messages", "model": "claude-sonnet-4-5"},
        {"provider": "gemini", "api": "gemini", "model": "gemini-2.5-pro"},
        {"provider": "openai", "api": "openai-chat", "model": "gpt-4o"},
        {"provider": "mistral", "api": "mistral", "model": "mistral-large-latest"},
    ]
)


verbatim_keys: st.SearchStrategy[dict[str, Any]] = st.sampled_from(
    [
        {"reasoning_items": []},
        {"thinking_blocks": []},
        {"provider_specific_fields": {"citations": None}},
        {"provider_specific_fields": {}},
    ]
)
"""Response-only keys the decoder keeps as they are, on a turn the rules may drop whole
(empty thinking, blank text) or merge into the next: what a merge builds must be what
the rules ahead of it leave."""


@st.composite
def agent_turn(draw: st.DrawFn) -> list[dict[str, Any]]:
    """One exchange: a user turn, an assistant turn with calls, and (most of) its results."""
    out: list[dict[str, Any]] = []
    if draw(st.booleans()):
        out.append({"role": "user", "content": draw(edge_text | text)})
    calls = [
        {
            "id": draw(edge_ids),
            "type": "function",
            "function": {"name": "f", "arguments": draw(st.sampled_from(["{}", '{"a": 1']))},
        }
        for _ in range(draw(st.integers(0, 2)))
    ]
    turn: dict[str, Any] = {"role": "assistant", "content": draw(edge_text | st.none())}
    if calls:
        turn["tool_calls"] = calls
    if draw(st.booleans()):
        turn["thinking_blocks"] = [
            {"type": "thinking", "thinking": draw(edge_text), "signature": draw(signatures)}
        ]
    if not draw(st.integers(0, 3)):
        turn.update(draw(verbatim_keys))
    if draw(st.booleans()):
        turn[STAMP_KEY] = draw(stamps)
    out.append(turn)
    for call in calls:
        if draw(st.integers(0, 4)):
            answer = draw(st.sampled_from([call["id"]] * 3 + _other_forms(call["id"])))
            out.append({"role": "tool", "tool_call_id": answer, "content": draw(edge_text)})
    return out


def _other_forms(call_id: str) -> list[str]:
    """The call's id with its ``__thought__`` signature dropped, or with one added."""
    bare = call_id.partition("__thought__")[0]
    return [bare] if bare != call_id else [f"{call_id}__thought__c2ln"]


@st.composite
def droppable_turn(draw: st.DrawFn) -> list[dict[str, Any]]:
    """An assistant turn of nothing a target keeps but response-only keys, then another.

    Blank text, empty thinking (signed or not), keys the decoder keeps as they are: the
    rules drop such a turn, or merge it into the assistant turn that follows (an
    exchange without its user turn, mostly).
    """
    turn: dict[str, Any] = {"role": "assistant", "content": draw(st.sampled_from(["", " ", None]))}
    if draw(st.integers(0, 3)):
        thinking = draw(st.sampled_from(["", "", " ", "a"]))
        signature = draw(st.sampled_from(["", "c2ln", "msg_01abc"]) | st.none())
        block = {"type": "thinking", "thinking": thinking}
        if signature is not None:
            block["signature"] = signature
        turn["thinking_blocks"] = [block]
    turn.update(draw(verbatim_keys))
    if draw(st.booleans()):
        turn[STAMP_KEY] = draw(stamps)
    following = draw(agent_turn())
    if following[0]["role"] == "user" and draw(st.integers(0, 3)):
        following = following[1:]
    return [turn, *following]


agent_transcripts = st.lists(
    st.one_of(agent_turn(), agent_turn(), agent_turn(), droppable_turn()), max_size=4
).map(lambda turns: [message for turn in turns for message in turn])


# -- targeted: Gemini's answers as LiteLLM returns them, unstamped ------------------------

gemini_signatures = st.sampled_from(
    ["c2ln", "c2lnbmF0dXJl", "tM8u2uhildh/+2Tp7fIZND7jwXZrQFxXD6hWI1ZY8us=", "msg_01abc", ""]
)
"""Canonical base64 (Gemini's), and what is not (an Anthropic message id, nothing)."""
bare_ids = st.from_regex(r"call_[a-z0-9]{4}", fullmatch=True)
signed_ids = st.one_of(
    st.builds(lambda i, s: f"{i}__thought__{s}", bare_ids, gemini_signatures), bare_ids
)
"""LiteLLM's ids for Gemini's calls: the signature inside (the first of parallel calls)."""
marked_text = st.builds(
    lambda t, marked: {"type": "text", "text": t, **({"cache_control": marked} if marked else {})},
    edge_text | text,
    st.none() | cache_control,
)
"""A text part, blank often, marked for caching or not."""
padded_texts = st.tuples(
    st.sampled_from(["", " ", "\n\t"]), st.sampled_from(["a", "done"]), cache_control
).map(
    lambda t: [
        {"type": "text", "text": t[0]},
        {"type": "text", "text": t[1], "cache_control": t[2]},
    ]
)
"""A blank text part beside one marked for caching (the empty-content rule drops the
first, and the texts left no longer number what they did)."""


@st.composite
def gemini_turn(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A user turn (mostly), then Gemini's answer as LiteLLM returns it, then its results.

    Text parts (blank ones beside ones marked for caching), ``reasoning_content`` beside
    ``provider_specific_fields.thought_signatures`` that may or may not line up with the
    text parts, calls whose ids carry a signature; unstamped, mostly, so only the turn's
    own content says where it came from. Rules drop blank parts, signatures and
    thinking here, and merge such a turn with the one before: each run must judge the
    output as it judged the turn.
    """
    turn: dict[str, Any] = {"role": "assistant"}
    form = draw(st.sampled_from(["parts", "parts", "string", "null"]))
    texts: list[str] = []
    if form == "parts":
        turn["content"] = draw(st.lists(marked_text, min_size=1, max_size=3) | padded_texts)
        texts = [part["text"] for part in turn["content"]]
    elif form == "string":
        turn["content"] = draw(edge_text)
        texts = [turn["content"]]
    else:
        turn["content"] = None
    if draw(st.booleans()):
        turn["reasoning_content"] = draw(edge_text | text)
    if draw(st.integers(0, 3)):
        # As many as the texts, as the texts a rule leaves (the blank ones dropped), or any.
        left = sum(1 for t in texts if t.strip())
        count = draw(st.sampled_from([len(texts), left, left]) | st.integers(1, 3))
        listed = draw(st.lists(gemini_signatures, min_size=count, max_size=count))
        turn["provider_specific_fields"] = {"thought_signatures": listed}
    calls: list[dict[str, Any]] = [
        {"id": draw(signed_ids), "type": "function", "function": {"name": "f", "arguments": "{}"}}
        for _ in range(draw(st.sampled_from([0, 0, 1, 2])))
    ]
    if calls:
        turn["tool_calls"] = calls
    if not draw(st.integers(0, 4)):
        turn[STAMP_KEY] = draw(stamps)
    out: list[dict[str, Any]] = []
    if draw(st.integers(0, 3)):
        out.append({"role": "user", "content": draw(edge_text | text)})
    out.append(turn)
    for call in calls:
        answer = draw(st.sampled_from([call["id"], call["id"], *_other_forms(call["id"])]))
        out.append({"role": "tool", "tool_call_id": answer, "content": draw(edge_text)})
    return out


gemini_transcripts = st.lists(gemini_turn(), min_size=1, max_size=3).map(
    lambda turns: [message for turn in turns for message in turn]
)
"""Transcripts of unstamped Gemini answers (see :func:`gemini_turn`), next to any target."""
