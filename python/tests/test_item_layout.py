"""The lineage table's item layout: the items the TypeScript codec writes
(test/vectors/item-layout.json) read here as the TypeScript readers read them."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from conftest import vectors

from reseal.item_layout import (
    LineageKeys,
    conflict_of,
    location_of,
    log_head_of,
    node_seq,
    nodes_of,
    record_of,
    rejection_of,
    triage_report_of,
)

LAYOUT = vectors("item-layout.json")


def decode(kind: str, item: dict[str, Any]) -> Any:
    lineage_id = LAYOUT["lineageId"]
    if kind == "record":
        return {"record": record_of(item), "nodes": nodes_of(item)}
    if kind == "head":
        head = log_head_of(lineage_id, item)
        return None if head is None else dataclasses.asdict(head)
    if kind == "marker":
        return location_of(item)
    if kind == "rejection":
        return rejection_of(lineage_id, item)
    if kind == "conflict":
        return conflict_of(lineage_id, item)
    if kind == "triage":
        return triage_report_of(item)
    raise AssertionError(f"unknown item kind {kind}")


def test_keys() -> None:
    keys = LAYOUT["keys"]
    lineage_id = LAYOUT["lineageId"]
    assert LineageKeys.lineage(lineage_id) == keys["lineage"]
    assert [LineageKeys.record(r["seq"]) for r in keys["record"]] == [r["sk"] for r in keys["record"]]
    assert keys["head"] == LineageKeys.HEAD
    assert LineageKeys.residual(keys["residual"]["residualId"]) == keys["residual"]["sk"]
    assert LineageKeys.conflicts_of(keys["conflictsOf"]["residualId"]) == keys["conflictsOf"]["prefix"]
    assert LineageKeys.rejection(lineage_id) == keys["rejection"]
    assert LineageKeys.triage(lineage_id) == keys["triage"]
    assert [node_seq(n["level"], n["index"]) for n in keys["nodeSeq"]] == [n["seq"] for n in keys["nodeSeq"]]


@pytest.mark.parametrize("entry", LAYOUT["items"] + LAYOUT["hostile"], ids=lambda e: e["name"])
def test_item_reads_as_the_typescript_codec_reads_it(entry: dict[str, Any]) -> None:
    assert decode(entry["kind"], entry["item"]) == entry["decoded"]


def test_every_item_kind_is_covered() -> None:
    assert {e["kind"] for e in LAYOUT["items"]} == {"record", "head", "marker", "rejection", "conflict", "triage"}
