"""Items put once and authenticated by their reader (records, their manifest and proof items,
deployment leaf items) are read eventually consistent; a key that copy misses is read again
strongly before it is taken as absent, so no answer changes. The heads stay strongly consistent
(docs/pipeline.md, "Learning the outcome of a write")."""

from __future__ import annotations

import json
from typing import Any

from reseal.item_layout import DeploymentLogTableReader, LineageTableReader

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
