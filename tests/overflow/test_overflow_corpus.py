"""Recall and false positives on the shared corpus of real provider errors.

Reads ``../shared/corpus`` in place (or ``$LITELLM_HYGIENE_SHARED/corpus``): the two TSV
lists of messages, and the error responses of the cassettes the manifest files under
category ``g`` (overflow or transcript-shape errors) and ``g-neg`` (not overflow).
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from litellm_hygiene._overflow import detect_overflow, is_context_overflow


def _shared_dir() -> Path:
    override = os.environ.get("LITELLM_HYGIENE_SHARED")
    return Path(override) if override else Path(__file__).resolve().parents[3] / "shared"


CORPUS = _shared_dir() / "corpus"
needs_corpus = pytest.mark.skipif(
    not (CORPUS / "overflow_errors.tsv").is_file(),
    reason=f"shared corpus not found at {CORPUS} (set LITELLM_HYGIENE_SHARED to the shared/ "
    "directory beside the project)",
)


def _rows(name: str) -> list[dict[str, str]]:
    with (CORPUS / name).open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def _status(text: str) -> int | None:
    return int(text) if text.strip().isdigit() else None


def _score(with_status: bool) -> tuple[list[str], list[str], int, int]:
    misses: list[str] = []
    false_positives: list[str] = []
    positives, negatives = _rows("overflow_errors.tsv"), _rows("non_overflow_errors.tsv")
    for rows, expected, wrong in ((positives, True, misses), (negatives, False, false_positives)):
        for row in rows:
            status = _status(row["http_status"]) if with_status else None
            if is_context_overflow(row["message"], status_code=status) is not expected:
                wrong.append(f"{row['provider']}: {row['message'][:120]}")
    return misses, false_positives, len(positives), len(negatives)


@needs_corpus
@pytest.mark.parametrize("with_status", [True, False], ids=["with-status", "message-only"])
def test_tsv_recall_and_false_positives(with_status: bool) -> None:
    misses, false_positives, positives, negatives = _score(with_status)
    recall = (positives - len(misses)) / positives
    print(
        f"\noverflow corpus ({'with' if with_status else 'without'} HTTP status): "
        f"recall {recall:.1%} ({positives - len(misses)}/{positives}), "
        f"false positives {len(false_positives)}/{negatives}"
    )
    assert misses == [], "missed overflows"
    assert false_positives == [], "look-alikes taken for overflows"


@needs_corpus
def test_byte_size_rows_are_a_separate_kind() -> None:
    for row in _rows("non_overflow_errors.tsv"):
        found = detect_overflow(row["message"], status_code=_status(row["http_status"]))
        assert found is None or found.kind == "request_too_large", row["message"]


def _manifest_g_rows() -> list[tuple[str, bool, str]]:
    """(file, is overflow, description) for every category g / g-neg row of the manifest."""
    rows: list[tuple[str, bool, str]] = []
    manifest = CORPUS / "MANIFEST.md"
    if not manifest.is_file():
        return rows
    for line in manifest.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.split("|")]
        if len(cells) < 11 or not re.fullmatch(r"(?:[a-f],)*g(?:-neg)?", cells[9]):
            continue
        rows.append((cells[2].strip("`"), cells[10].startswith("OVERFLOW"), cells[10]))
    return rows


def _error_responses(path: Path, description: str) -> Iterator[tuple[Any, int | None]]:
    """Each error body with its status; only the response parts of a cassette are parsed."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        status = re.search(r"\b([45]\d\d)\b", description)
        yield json.loads(text), int(status.group(1)) if status else None
        return
    for part in text.split("\n  response:\n")[1:]:
        response_yaml = "response:\n" + part.split("\n- request:\n", 1)[0]
        response = yaml.load(response_yaml, Loader=yaml.CSafeLoader)["response"]
        status = response.get("status", {}).get("code")
        if isinstance(status, int) and status >= 400:
            body = response.get("parsed_body")
            if body is None:
                body = (response.get("body") or {}).get("string", "")
            yield body, status


@needs_corpus
@pytest.mark.parametrize(
    ("name", "overflow", "description"),
    _manifest_g_rows(),
    ids=lambda v: Path(v).stem[-60:] if isinstance(v, str) and "/" in v else "",
)
def test_cassette_error_bodies(name: str, overflow: bool, description: str) -> None:
    responses = list(_error_responses(CORPUS / "cassettes" / name, description))
    assert responses, f"no error response in {name}"
    for body, status in responses:
        source: Mapping[str, Any] | str = body if isinstance(body, Mapping) else str(body)
        assert is_context_overflow(source, status_code=status) is overflow, description
        assert is_context_overflow(source) is overflow, description


@needs_corpus
def test_corpus_through_litellm_exceptions() -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from litellm import exceptions

    by_status: dict[int | None, Any] = {
        401: exceptions.AuthenticationError,
        404: exceptions.NotFoundError,
        429: exceptions.RateLimitError,
    }
    for name, expected in (("overflow_errors.tsv", True), ("non_overflow_errors.tsv", False)):
        for row in _rows(name):
            cls = by_status.get(_status(row["http_status"]), exceptions.BadRequestError)
            err = cls(
                message=f"{row['provider'].title()}Exception - {row['message']}",
                model="some-model",
                llm_provider=row["provider"],
            )
            assert is_context_overflow(err) is expected, row["message"]
