"""Items put once and authenticated by their reader (records, their manifest and proof items,
deployment leaf items) are read eventually consistent; a key that copy misses is read again
strongly before it is taken as absent, so no answer changes. The heads stay strongly consistent
(docs/pipeline.md, "Learning the outcome of a write")."""

from __future__ import annotations

import gzip
import json
from typing import Any

from reseal.canonical import canonical_json
from reseal.item_layout import DeploymentLogTableReader, LineageKeys, LineageTableReader
from reseal.triage import build_manifest, manifest_digest

LINEAGE = "lineage-a"


def _key(key: dict[str, Any]) -> tuple[str, str]:
    return (key["pk"]["S"], key["sk"]["S"])


class CountingTable:
    """``get_item`` and ``batch_get_item`` over ``items``, recording each read's consistency and key
    count; a key in ``stale`` was just written, so an eventually consistent read misses it."""

    def __init__(self, items: list[dict[str, Any]], stale: list[dict[str, Any]] | None = None) -> None:
        self.items = {_key(i): i for i in items}
        self.stale = {_key(i) for i in stale or []}
        self.reads: list[tuple[str, int, bool]] = []

    def _visible(self, key: tuple[str, str], consistent: bool) -> dict[str, Any] | None:
        return None if not consistent and key in self.stale else self.items.get(key)

    def get_item(self, **args: Any) -> dict[str, Any]:
        self.reads.append(("GetItem", 1, args["ConsistentRead"]))
        item = self._visible(_key(args["Key"]), args["ConsistentRead"])
        return {} if item is None else {"Item": item}

    def batch_get_item(self, RequestItems: dict[str, Any]) -> dict[str, Any]:
        ((table, request),) = RequestItems.items()
        consistent = request["ConsistentRead"]
        self.reads.append(("BatchGetItem", len(request["Keys"]), consistent))
        found = [self._visible(_key(k), consistent) for k in request["Keys"]]
        return {"Responses": {table: [i for i in found if i is not None]}}


def _hex(byte: int) -> str:
    return bytes([byte]).hex() * 32


def record_at(seq: int) -> dict[str, Any]:
    return {
        "pk": {"S": f"LINEAGE#{LINEAGE}"},
        "sk": {"S": f"RECORD#{seq:016d}"},
        "record": {"S": json.dumps({"seq": seq})},
        "nodes": {"B": bytes.fromhex(_hex(seq + 1))},
    }


def leaf_at(index: int) -> dict[str, Any]:
    return {
        "pk": {"S": "DEPLOYMENT#log"},
        "sk": {"S": f"LEAF#{index:016d}"},
        "indexRoot": {"S": _hex(0xA0 + index)},
        "nodes": {"S": json.dumps([_hex(0x10 + index)])},
    }


def test_read_record_is_eventually_consistent_and_a_stale_miss_is_read_strongly() -> None:
    for items, stale, answer, consistency in [
        ([record_at(3)], [], {"seq": 3}, [False]),
        ([record_at(3)], [record_at(3)], {"seq": 3}, [False, True]),
        ([], [], None, [False, True]),
    ]:
        table = CountingTable(items, stale)
        assert LineageTableReader(table, "t").read_record(LINEAGE, 3) == answer
        assert [c for _, _, c in table.reads] == consistency


def test_record_nodes_are_eventually_consistent_and_only_the_missed_seqs_are_read_strongly() -> None:
    refs = [(0, 1), (0, 3), (0, 5)]
    items = [record_at(1), record_at(3)]
    expected = [_hex(2), _hex(4), None]
    fresh = CountingTable(items)
    assert LineageTableReader(fresh, "t").read_nodes(LINEAGE, refs) == expected
    assert fresh.reads == [("BatchGetItem", 3, False), ("BatchGetItem", 1, True)]
    stale = CountingTable(items, [record_at(3)])
    assert LineageTableReader(stale, "t").read_nodes(LINEAGE, refs) == expected
    assert stale.reads == [("BatchGetItem", 3, False), ("BatchGetItem", 2, True)]


def test_deployment_leaves_are_eventually_consistent_and_a_stale_miss_is_read_strongly() -> None:
    for items, stale, root, consistency in [
        ([leaf_at(4)], [], _hex(0xA4), [False]),
        ([leaf_at(4)], [leaf_at(4)], _hex(0xA4), [False, True]),
        ([], [], None, [False, True]),
    ]:
        table = CountingTable(items, stale)
        assert DeploymentLogTableReader(table, "t").leaf_index_root(4) == root
        assert [c for _, _, c in table.reads] == consistency
    refs = [(0, 2), (0, 6)]
    stale_leaves = CountingTable([leaf_at(2), leaf_at(6)], [leaf_at(6)])
    assert DeploymentLogTableReader(stale_leaves, "t").read_nodes(refs) == [_hex(0x12), _hex(0x16)]
    assert stale_leaves.reads == [("BatchGetItem", 2, False), ("BatchGetItem", 1, True)]


def test_the_heads_stay_strongly_consistent() -> None:
    table = CountingTable([])
    LineageTableReader(table, "t").log_head(LINEAGE)
    DeploymentLogTableReader(table, "t").head()
    assert table.reads == [("GetItem", 1, True), ("GetItem", 1, True)]


def _manifest_item(manifest: dict[str, Any]) -> dict[str, Any]:
    digest = manifest_digest(manifest)
    return {
        "pk": {"S": LineageKeys.manifest(LINEAGE, digest)},
        "sk": {"S": LineageKeys.MANIFEST_SK},
        "manifest": {"B": gzip.compress(canonical_json(manifest).encode("utf-8"))},
    }


def test_a_reader_keeping_manifests_reads_a_manifest_item_once_and_keeps_none_that_does_not_hash_to_its_digest() -> (
    None
):
    manifest = build_manifest({"env": {"ARCH": "arm64"}, "structuralKeys": ["ARCH"], "claimDependencyMap": {}})
    digest = manifest_digest(manifest)
    record = {
        "pk": {"S": f"LINEAGE#{LINEAGE}"},
        "sk": {"S": f"RECORD#{3:016d}"},
        "record": {"S": json.dumps({"header": {"manifestDigest": digest}})},
    }
    forged = {**manifest, "structuralKeys": []}
    for item, kept in [
        (_manifest_item(manifest), True),
        ({**_manifest_item(forged), "pk": _manifest_item(manifest)["pk"]}, False),
    ]:
        table = CountingTable([record, item])
        reader = LineageTableReader(table, "t", manifest_cache=4)
        for _ in range(3):
            read = reader.read_record(LINEAGE, 3)
            assert read["manifest"] == (manifest if kept else forged)
        # Three record reads; the manifest item read once when it hashes to its digest, each time when not.
        assert [r for r in table.reads if r[0] == "GetItem"] == [("GetItem", 1, False)] * 3
        assert len([r for r in table.reads if r[0] == "BatchGetItem"]) == (1 if kept else 3)
        # Walks and audits (with_manifests) read the table as it stands; a reader keeping none reads it each time.
        table.reads.clear()
        reader.with_manifests(LINEAGE, [json.loads(record["record"]["S"])])
        LineageTableReader(table, "t").read_record(LINEAGE, 3)
        assert len([r for r in table.reads if r[0] == "BatchGetItem"]) == 2


def test_a_reader_keeping_manifests_keeps_none_over_64_kib_of_canonical_json_in_utf_8() -> None:
    # Keys of three-byte characters: under 64 Ki characters, over 64 KiB in UTF-8.
    env = {f"鍵{'値' * 150}{i}": "v" for i in range(200)}
    manifest = build_manifest({"env": env, "structuralKeys": [], "claimDependencyMap": {}})
    text = canonical_json(manifest)
    assert len(text) < 64 * 1024 < len(text.encode("utf-8"))
    record = {
        "pk": {"S": f"LINEAGE#{LINEAGE}"},
        "sk": {"S": f"RECORD#{3:016d}"},
        "record": {"S": json.dumps({"header": {"manifestDigest": manifest_digest(manifest)}})},
    }
    table = CountingTable([record, _manifest_item(manifest)])
    reader = LineageTableReader(table, "t", manifest_cache=4)
    for _ in range(2):
        assert reader.read_record(LINEAGE, 3)["manifest"] == manifest
    # Read from the table both times: too large to keep.
    assert len([r for r in table.reads if r[0] == "BatchGetItem"]) == 2
