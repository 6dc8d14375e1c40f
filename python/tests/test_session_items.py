"""The session-item payloads and their fold (docs/frameworks.md, "Session items as residuals"),
held to the vector file the TypeScript core is held to: a session written in either language
reads the same in the other."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import vectors

from reseal import InvalidInputError
from reseal.adapters.session_history import (
    SessionHistoryError,
    SessionOp,
    SessionRecordView,
    fold_session_history,
    session_add_payload,
    session_removal_payload,
)

FILE = vectors("session-item.json")


def views(records: list[dict[str, Any]]) -> list[SessionRecordView]:
    return [SessionRecordView(r["seq"], r["recordHash"], r["supersedes"], r["payload"]) for r in records]


@pytest.mark.parametrize("case", FILE["payloads"], ids=lambda c: c["name"])
def test_an_item_becomes_the_add_payload_of_the_file(case: dict[str, Any]) -> None:
    assert session_add_payload(case["item"]) == case["payload"]


def test_the_removal_payloads_are_the_files() -> None:
    assert session_removal_payload(SessionOp.POP) == FILE["removals"]["pop"]
    assert session_removal_payload(SessionOp.CLEAR) == FILE["removals"]["clear"]


@pytest.mark.parametrize("history", [h for h in FILE["histories"] if "live" in h], ids=lambda h: h["name"])
def test_a_history_folds_as_the_file_says(history: dict[str, Any]) -> None:
    live = fold_session_history(views(history["records"]))
    assert [{"item": i.item, "seq": i.seq, "recordHash": i.record_hash} for i in live] == history["live"]


@pytest.mark.parametrize("history", [h for h in FILE["histories"] if "error" in h], ids=lambda h: h["name"])
def test_a_history_that_does_not_fold_raises_as_the_file_says(history: dict[str, Any]) -> None:
    with pytest.raises(SessionHistoryError) as raised:
        fold_session_history(views(history["records"]))
    assert {"seq": raised.value.seq, "reason": raised.value.reason} == history["error"]


@pytest.mark.parametrize(
    ("item", "where"),
    [
        ({"role": "user", "content": {1, 2}}, "items.3.content"),
        ({"role": "user", "score": float("nan")}, "items.3.score"),
        ({"role": "user", "tokens": 2**60}, "items.3.tokens"),
        ({"role": "user", "content": ("a", "b")}, "items.3.content"),
        ({"role": "user", 7: "x"}, "items.3"),
        (["a list"], "items.3"),
    ],
)
def test_an_item_without_a_canonical_json_form_is_refused_naming_where(item: Any, where: str) -> None:
    with pytest.raises(InvalidInputError) as raised:
        session_add_payload(item, "items.3")
    assert raised.value.issues[0].path == where
