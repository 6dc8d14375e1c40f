"""The lineage table's item layout: the items the TypeScript codec writes
(test/vectors/item-layout.json) read here as the TypeScript readers read them."""

from __future__ import annotations

import base64
import dataclasses
import gzip
import tracemalloc
import zlib
from typing import Any

import pytest
from conftest import vectors

from reseal import item_layout
from reseal.errors import InvalidInputError, ManifestReadBoundError
from reseal.head_state import claimed_head_state
from reseal.item_layout import (
    MAX_MANIFEST_BYTES,
    MAX_MANIFEST_BYTES_PER_READ,
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
    assert LineageKeys.manifest(lineage_id, keys["manifest"]["digest"]) == keys["manifest"]["pk"]
    assert LineageKeys.shared_manifest(keys["manifest"]["digest"]) == keys["manifest"]["sharedPk"]
    assert LineageKeys.manifest_digest_of(keys["manifest"]["pk"]) == keys["manifest"]["digest"]
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
    BatchGetItem and leaving the rest unprocessed, as a throttled table may; it records the reads
    (a copy of any consistency holds every item: test_written_item_reads covers a stale one)."""

    def __init__(self, items: list[dict[str, Any]]) -> None:
        self.items = {(i["pk"]["S"], i["sk"]["S"]): i for i in items}
        self.batches: list[dict[str, Any]] = []

    def get_item(self, TableName: str, Key: dict[str, Any], ConsistentRead: bool) -> dict[str, Any]:
        item = self.items.get((Key["pk"]["S"], Key["sk"]["S"]))
        return {} if item is None else {"Item": item}

    def batch_get_item(self, RequestItems: dict[str, Any]) -> dict[str, Any]:
        ((table, request),) = RequestItems.items()
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


def test_a_manifest_is_read_under_the_records_lineage_and_an_earlier_layouts_shared_item_still_reads() -> None:
    """docs/sealing.md, "Stored items": a manifest item is keyed by lineage and digest, so a reader
    of one lineage never reads another lineage's item by the digest; a record sealed before this
    layout still reads its ``MANIFEST#<digest>`` item."""
    entry = stored("record and its manifest item")
    record = record_of(boto(entry["record"]))
    digest = record["header"]["manifestDigest"]
    (item,) = (boto(m) for m in entry["manifests"])
    lineage_id = LAYOUT["lineageId"]
    assert item["pk"]["S"] == LineageKeys.manifest(lineage_id, digest)
    other = {**item, "pk": {"S": LineageKeys.manifest("tenant-b/other", digest)}}
    (alone,) = LineageTableReader(TableOf([other]), "t").with_manifests(lineage_id, [record])
    assert "manifest" not in alone  # another lineage's item under the same digest is not this record's
    earlier = {**item, "pk": {"S": LineageKeys.shared_manifest(digest)}}
    (back,) = LineageTableReader(TableOf([earlier]), "t").with_manifests(lineage_id, [record])
    assert back == entry["decoded"]


def test_manifests_are_read_once_per_digest_in_batches_of_at_most_100() -> None:
    entry = stored("record and its manifest item")
    record = record_of(boto(entry["record"]))
    digest = record["header"]["manifestDigest"]
    others = [f"{i:064x}" for i in range(150)]
    table = TableOf([boto(m) for m in entry["manifests"]])
    named = [record, record] + [{**record, "header": {**record["header"], "manifestDigest": d}} for d in others]
    lineage_id = LAYOUT["lineageId"]
    back = LineageTableReader(table, "t").with_manifests(lineage_id, named)
    assert back[0] == back[1] == entry["decoded"]
    assert all("manifest" not in r for r in back[2:])  # no item for those digests: left without one
    asked = [k["pk"]["S"] for batch in table.batches for k in batch["Keys"][:1]]
    # Under the lineage's keys first, eventually consistent, and the digests missed strongly again;
    # those not found there once more under the earlier layout's.
    assert sorted(asked) == sorted(
        [LineageKeys.manifest(lineage_id, d) for d in [digest, *others, *others]]
        + [LineageKeys.shared_manifest(d) for d in others]
    )
    consistency = [batch["ConsistentRead"] for batch in table.batches if batch["Keys"][0]["pk"]["S"].endswith(digest)]
    assert consistency == [False]
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


_DECOMPRESSOBJ = zlib.decompressobj


class _CountingInflater:
    """A ``zlib.decompressobj`` that counts the compressed bytes it is fed."""

    fed = 0

    def __init__(self, **kwargs: Any) -> None:
        self._inner = _DECOMPRESSOBJ(**kwargs)

    def decompress(self, data: Any, max_length: int = 0) -> bytes:
        _CountingInflater.fed += len(data)
        return self._inner.decompress(data, max_length)

    @property
    def eof(self) -> bool:
        return self._inner.eof

    @property
    def unused_data(self) -> bytes:
        return self._inner.unused_data


def test_many_gzip_members_inflate_in_linear_work(monkeypatch: pytest.MonkeyPatch) -> None:
    # 4,000 members of 20 bytes each: re-feeding the rest after each member would feed zlib
    # about 4,000 × 40 KB; each member must cost only its own bytes (and one first chunk).
    members = 4_000
    data = gzip.compress(b"{}") + gzip.compress(b"") * (members - 1)
    monkeypatch.setattr(item_layout.zlib, "decompressobj", _CountingInflater)
    _CountingInflater.fed = 0
    assert manifest_of({"manifest": {"B": data}}) == {}
    assert _CountingInflater.fed <= 4 * len(data), (_CountingInflater.fed, len(data))


def test_many_gzip_members_stay_bounded_by_the_cap() -> None:
    # Members that each inflate to 1 MiB: the fifth passes the cap, and the reader stops there.
    member = gzip.compress(b" " * (1024 * 1024))
    data = gzip.compress(b"{") + member * 5
    assert manifest_of({"manifest": {"B": data}}) is None
    assert manifest_of({"manifest": {"B": gzip.compress(b"{") + member * 3 + gzip.compress(b"}")}}) == {}


def test_the_manifests_of_one_read_inflate_to_at_most_the_read_bound() -> None:
    # Planted gzip bombs of a few KiB, each inflating to exactly the per-item cap (allowed alone).
    bomb = gzip.compress(b"{" + b" " * (MAX_MANIFEST_BYTES - 2) + b"}")
    fits = MAX_MANIFEST_BYTES_PER_READ // MAX_MANIFEST_BYTES
    entry = stored("record and its manifest item")
    record = record_of(boto(entry["record"]))

    def read(count: int) -> list[Any]:
        digests = [f"{i:064x}" for i in range(count)]
        items = [
            {
                "pk": {"S": LineageKeys.manifest(LAYOUT["lineageId"], d)},
                "sk": {"S": LineageKeys.MANIFEST_SK},
                "manifest": {"B": bomb},
            }
            for d in digests
        ]
        named = [{**record, "header": {**record["header"], "manifestDigest": d}} for d in digests]
        return LineageTableReader(TableOf(items), "t").with_manifests(LAYOUT["lineageId"], named)

    assert all(r["manifest"] == {} for r in read(fits))
    with pytest.raises(ManifestReadBoundError) as raised:
        read(fits + 4)
    assert raised.value.manifest_digest in {f"{i:064x}" for i in range(fits + 4)}
    assert raised.value.bound_bytes == MAX_MANIFEST_BYTES_PER_READ


def test_a_missing_manifest_item_is_hash_mismatch_naming_its_digest() -> None:
    failure = check_record_integrity(read_stored(stored("record stored without its manifest (manifest item missing)")))
    assert isinstance(failure, IntegrityFailure)
    digest = record_of(boto(stored("record and its manifest item")["record"]))["header"]["manifestDigest"]
    assert failure.reason == (
        f"the manifest of manifestDigest {digest} is missing (its stored item deleted, or never written)"
    )


@pytest.mark.parametrize("entry", LAYOUT["headStates"], ids=lambda e: e["name"])
def test_a_head_item_reads_as_the_head_state_the_typescript_reader_takes(entry: dict[str, Any]) -> None:
    """docs/sealing.md, "The append's layout": a head with its tip header and a small head (its
    attributes, the policy digest from its policy) read as the same state in both packages."""
    lineage_id = LAYOUT["lineageId"]
    stored = log_head_of(lineage_id, boto(entry["item"]))
    assert stored is not None
    if entry["state"] is None:
        with pytest.raises(InvalidInputError):
            claimed_head_state(lineage_id, stored)
    else:
        assert claimed_head_state(lineage_id, stored) == entry["state"]
