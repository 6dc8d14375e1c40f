"""The deployment log's and the verifiable index's items (docs/deployment-log.md, "Storage"), as
the TypeScript adapters write them (test/vectors/item-layout.json, `deploymentLog`), read here as
the TypeScript readers read them; each index tile decodes to its address (docs/verifiable-index.md,
"Tiles"), and every tile the TypeScript decoder refuses is refused here too."""

from __future__ import annotations

import base64
import dataclasses
from typing import Any

import pytest
from conftest import vectors

from reseal.errors import InvalidInputError
from reseal.index import (
    INDEX_EMPTY_HASH,
    decode_index_tile,
    index_entry_digest,
    index_entry_key,
    index_key_path,
    index_leaf_hash,
    index_node_hash,
)
from reseal.item_layout import (
    DEPLOYMENT_HEAD_SK,
    DEPLOYMENT_LOG_PK,
    INDEX_NODE_SK,
    DeploymentLogTableReader,
    deployment_head_of,
    deployment_leaf_sk,
    index_node_pk,
    index_tile_of,
    leaf_index_root_of,
    leaf_node_of,
)

DEPLOYMENT = vectors("item-layout.json")["deploymentLog"]


def boto(item: dict[str, Any]) -> dict[str, Any]:
    """A vector item as boto3's client returns it: binary attributes as bytes, not base64."""
    return {n: {"B": base64.b64decode(v["B"])} if isinstance(v, dict) and "B" in v else v for n, v in item.items()}


def decode(kind: str, item: dict[str, Any]) -> Any:
    if kind == "head":
        head = deployment_head_of(item)
        fields = dataclasses.asdict(head)
        return {
            "size": fields["size"],
            "checkpoint": fields["checkpoint"],
            "frontier": fields["frontier"],
            "indexRoot": fields["index_root"],
            "published": fields["published"],
            "reAnchor": fields["re_anchor"],
        }
    if kind == "leaf":
        return {"indexRoot": leaf_index_root_of(item), "nodes": [leaf_node_of(item, level) for level in range(4)]}
    assert kind == "indexNode"
    return {"tileHex": index_tile_of(item).hex()}


def test_keys() -> None:
    keys = DEPLOYMENT["keys"]
    assert (keys["pk"], keys["head"]) == (DEPLOYMENT_LOG_PK, DEPLOYMENT_HEAD_SK)
    for leaf in keys["leaf"]:
        assert deployment_leaf_sk(leaf["index"]) == leaf["sk"]
    node = keys["indexNode"]
    assert (index_node_pk(node["hashHex"]), INDEX_NODE_SK) == (node["pk"], node["sk"])


@pytest.mark.parametrize("entry", DEPLOYMENT["items"] + DEPLOYMENT["hostile"], ids=lambda e: e["name"])
def test_item_reads_as_the_typescript_adapter_reads_it(entry: dict[str, Any]) -> None:
    assert decode(entry["kind"], boto(entry["item"])) == entry["decoded"]


def test_every_index_node_hashes_to_its_address() -> None:
    def address(node: dict[str, Any]) -> bytes:
        if node["kind"] == "interior":
            return index_node_hash(node["left"], node["right"])
        path = index_key_path(index_entry_key(node["entry"]))
        return index_leaf_hash(path, index_entry_digest(node["entry"]))

    by_name = {e["name"]: e for e in DEPLOYMENT["items"]}
    for stated in DEPLOYMENT["addresses"]:
        if "entry" in stated:
            node: dict[str, Any] | None = {"kind": "leaf", "entry": stated["entry"]}
        else:
            item = boto(by_name[stated["name"]]["item"])
            tile = decode_index_tile(index_tile_of(item))
            assert tile.root.hex() == stated["hashHex"]
            node = tile.nodes[tile.root]
            assert item["pk"]["S"] == index_node_pk(stated["hashHex"])
        assert node is not None and address(node).hex() == stated["hashHex"], stated["name"]
    assert INDEX_EMPTY_HASH.hex() not in {a["hashHex"] for a in DEPLOYMENT["addresses"]}


@pytest.mark.parametrize("tile", DEPLOYMENT["tiles"], ids=lambda t: t["name"])
def test_a_tile_decodes_to_its_root(tile: dict[str, Any]) -> None:
    decoded = decode_index_tile(bytes.fromhex(tile["tileHex"]))
    assert decoded.root.hex() == tile["rootHex"] and decoded.root in decoded.nodes


@pytest.mark.parametrize("tile", DEPLOYMENT["refusedTiles"], ids=lambda t: t["name"])
def test_a_tile_the_typescript_decoder_refuses_is_refused(tile: dict[str, Any]) -> None:
    with pytest.raises(InvalidInputError):
        decode_index_tile(bytes.fromhex(tile["tileHex"]))


class FakeDynamoDB:
    """``get_item`` and ``batch_get_item`` over the vector items (one unprocessed round)."""

    def __init__(self, items: list[dict[str, Any]]) -> None:
        self.items = {(i["pk"]["S"], i["sk"]["S"]): i for i in items}
        self.deferred = True

    def get_item(self, **args: Any) -> dict[str, Any]:
        item = self.items.get((args["Key"]["pk"]["S"], args["Key"]["sk"]["S"]))
        return {} if item is None else {"Item": item}

    def batch_get_item(self, RequestItems: dict[str, Any]) -> dict[str, Any]:
        ((table, request),) = RequestItems.items()
        keys = request["Keys"]
        later = keys[1:] if self.deferred and len(keys) > 1 else []
        self.deferred = False
        now = keys[: len(keys) - len(later)]
        found = [self.items[k] for k in ((x["pk"]["S"], x["sk"]["S"]) for x in now) if k in self.items]
        return {"Responses": {table: found}, "UnprocessedKeys": {table: {"Keys": later}} if later else {}}


def test_the_reader_reads_the_head_leaves_nodes_and_index_nodes() -> None:
    items = [boto(e["item"]) for e in DEPLOYMENT["items"]]
    reader = DeploymentLogTableReader(FakeDynamoDB(items), "table")
    head = reader.head()
    assert head is not None and head.size == 4 and head.published is not None
    leaf = next(e for e in DEPLOYMENT["items"] if e["kind"] == "leaf")
    assert reader.leaf_index_root(3) == leaf["decoded"]["indexRoot"]
    assert reader.leaf_index_root(0) is None
    # Nodes (0, 3), (1, 1) and (2, 0) live on leaf 3 (docs/deployment-log.md, "Storage"); (0, 0) is not stored.
    assert reader.read_nodes([(0, 3), (1, 1), (2, 0), (0, 0)]) == [*leaf["decoded"]["nodes"][:3], None]
    address = bytes.fromhex(DEPLOYMENT["keys"]["indexNode"]["hashHex"])
    nodes = reader.index_nodes([address, b"\0" * 32, address])
    assert nodes[0] is not None and nodes[0]["kind"] == "interior" and nodes[1] is None and nodes[2] == nodes[0]
    assert DeploymentLogTableReader(FakeDynamoDB([]), "table").head() is None


def test_the_reader_finds_the_nodes_inside_a_tile_and_refuses_an_edited_one() -> None:
    tile_item = boto(next(e["item"] for e in DEPLOYMENT["items"] if e["name"] == "index tile"))
    table = FakeDynamoDB([tile_item])
    table.deferred = False
    asked: list[bool] = []
    batch_get_item = table.batch_get_item

    def recording(RequestItems: dict[str, Any]) -> dict[str, Any]:
        asked.append(next(iter(RequestItems.values()))["ConsistentRead"])
        return batch_get_item(RequestItems)

    table.batch_get_item = recording  # type: ignore[method-assign]
    reader = DeploymentLogTableReader(table, "table")
    address = bytes.fromhex(DEPLOYMENT["keys"]["indexNode"]["hashHex"])
    (interior,) = reader.index_nodes([address])
    assert interior is not None and index_node_hash(interior["left"], interior["right"]) == address
    assert asked == [False]
    # Both leaves are spelled out in the root's tile: no item holds them, no read is made.
    leaves = reader.index_nodes([interior["left"], interior["right"]])
    assert [n and n["kind"] for n in leaves] == ["leaf", "leaf"] and asked == [False]
    # A key the eventually consistent read misses is asked once more, consistently.
    assert reader.index_nodes([b"\1" * 32]) == [None] and asked == [False, False, True]

    edited = bytearray(tile_item["tile"]["B"])
    edited[-1] ^= 1
    table = FakeDynamoDB([{**tile_item, "tile": {"B": bytes(edited)}}])
    (node,) = DeploymentLogTableReader(table, "table").index_nodes([address])
    assert node is not None and node["kind"] == "interior"
    assert index_node_hash(node["left"], node["right"]) != address
