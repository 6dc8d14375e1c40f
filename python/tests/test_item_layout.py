"""The lineage table's item layout: the items the TypeScript codec writes
(test/vectors/item-layout.json) read here as the TypeScript readers read them."""

from __future__ import annotations

import base64
import dataclasses
import gzip
import tracemalloc
from typing import Any

import pytest
from conftest import vectors

from reseal.item_layout import (
    MAX_MANIFEST_BYTES,
    NO_MANIFEST,
    LineageKeys,
    LineageTableReader,
    conflict_of,
    location_of,
    log_head_of,
    manifest_of,
    node_seq,
    nodes_of,
    record_of,
    rejection_of,
    triage_report_of,
)
from reseal.records import IntactRecord, IntegrityFailure, check_record_integrity

LAYOUT = vectors("item-layout.json")


def boto(item: dict[str, Any]) -> dict[str, Any]:
    """A vector item as boto3's client returns it: binary attributes as bytes, not base64."""
    return {n: {"B": base64.b64decode(v["B"])} if isinstance(v, dict) and "B" in v else v for n, v in item.items()}


def decode(kind: str, vector_item: dict[str, Any]) -> Any:
    lineage_id = LAYOUT["lineageId"]
    item = boto(vector_item)
    if kind == "manifest":
        manifest = manifest_of(item)
        return {"present": manifest is not NO_MANIFEST, "manifest": None if manifest is NO_MANIFEST else manifest}
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
    assert LineageKeys.manifest(keys["manifest"]["digest"]) == keys["manifest"]["pk"]
    assert keys["manifest"]["sk"] == LineageKeys.MANIFEST_SK
    assert keys["maxManifestBytes"] == MAX_MANIFEST_BYTES


@pytest.mark.parametrize("entry", LAYOUT["items"] + LAYOUT["hostile"], ids=lambda e: e["name"])
def test_item_reads_as_the_typescript_codec_reads_it(entry: dict[str, Any]) -> None:
    assert decode(entry["kind"], entry["item"]) == entry["decoded"]


def test_every_item_kind_is_covered() -> None:
    kinds = {"record", "head", "marker", "rejection", "conflict", "triage", "manifest"}
    assert {e["kind"] for e in LAYOUT["items"]} == kinds


class TableOf:
    """A DynamoDB client over fixed items (``get_item``, ``batch_get_item``), answering one key per
    BatchGetItem and leaving the rest unprocessed, as a throttled table may; it records the reads."""

    def __init__(self, items: list[dict[str, Any]]) -> None:
        self.items = {(i["pk"]["S"], i["sk"]["S"]): i for i in items}
        self.batches: list[dict[str, Any]] = []

    def get_item(self, TableName: str, Key: dict[str, Any], ConsistentRead: bool) -> dict[str, Any]:
        assert ConsistentRead
        item = self.items.get((Key["pk"]["S"], Key["sk"]["S"]))
        return {} if item is None else {"Item": item}

    def batch_get_item(self, RequestItems: dict[str, Any]) -> dict[str, Any]:
        ((table, request),) = RequestItems.items()
        assert request["ConsistentRead"]
        self.batches.append(request)
        first, *rest = request["Keys"]
        found = self.items.get((first["pk"]["S"], first["sk"]["S"]))
        return {
            "Responses": {table: [] if found is None else [found]},
            "UnprocessedKeys": {table: {**request, "Keys": rest}} if rest else {},
        }


def read_stored(entry: dict[str, Any]) -> Any:
    lineage_id = LAYOUT["lineageId"]
    table = TableOf([boto(entry["record"])] + [boto(m) for m in entry["manifests"]])
    seq = int(entry["record"]["sk"]["S"][len("RECORD#") :])
    return LineageTableReader(table, "t").read_record(lineage_id, seq)


@pytest.mark.parametrize("entry", LAYOUT["stored"], ids=lambda e: e["name"])
def test_a_record_reads_with_its_manifest_item_as_the_typescript_readers_read_it(entry: dict[str, Any]) -> None:
    assert read_stored(entry) == entry["decoded"]


def stored(name: str) -> dict[str, Any]:
    return next(e for e in LAYOUT["stored"] if e["name"] == name)


def test_the_record_put_back_with_its_manifest_item_is_the_sealed_record() -> None:
    entry = stored("record and its manifest item")
    assert "manifest" not in record_of(boto(entry["record"]))  # stored without it
    intact = check_record_integrity(read_stored(entry))
    assert isinstance(intact, IntactRecord), intact
    inline = check_record_integrity(
        read_stored(stored("record with the manifest inline (earlier layout), no manifest item"))
    )
    assert isinstance(inline, IntactRecord), inline
    assert inline.record == intact.record


@pytest.mark.parametrize(
    "name",
    [
        "record stored without its manifest (manifest item missing)",
        "record whose manifest item is edited",
        "record whose manifest item is not gzip",
        "record whose manifest item has no manifest attribute",
    ],
)
def test_an_edited_missing_or_undecodable_manifest_item_fails_the_records_hash_check(name: str) -> None:
    failure = check_record_integrity(read_stored(stored(name)))
    assert isinstance(failure, IntegrityFailure)
    assert failure.verdict == "HASH_MISMATCH", failure


def test_manifests_are_read_once_per_digest_in_batches_of_at_most_100() -> None:
    entry = stored("record and its manifest item")
    record = record_of(boto(entry["record"]))
    digest = record["header"]["manifestDigest"]
    others = [f"{i:064x}" for i in range(150)]
    table = TableOf([boto(m) for m in entry["manifests"]])
    named = [record, record] + [{**record, "header": {**record["header"], "manifestDigest": d}} for d in others]
    back = LineageTableReader(table, "t").with_manifests(named)
    assert back[0] == back[1] == entry["decoded"]
    assert all("manifest" not in r for r in back[2:])  # no item for those digests: left without one
    asked = [k["pk"]["S"] for batch in table.batches for k in batch["Keys"][:1]]
    assert sorted(asked) == sorted(LineageKeys.manifest(d) for d in [digest, *others])
    assert max(len(batch["Keys"]) for batch in table.batches) == 100


def test_a_zip_bomb_reads_as_undecodable_without_being_inflated_past_the_cap() -> None:
    bomb = gzip.compress(b" " * (16 * MAX_MANIFEST_BYTES), compresslevel=9)
    assert len(bomb) < MAX_MANIFEST_BYTES // 64
    tracemalloc.start()
    try:
        assert manifest_of({"manifest": {"B": bomb}}) is None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * MAX_MANIFEST_BYTES, peak
