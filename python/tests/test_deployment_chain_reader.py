"""The chain reader over a table (docs/deployment-log.md, "Clients", item 2): an index and a
deployment log built here and stored in the layout of test/vectors/item-layout.json; the reader
proves what the index holds, and a table writer who hides or edits an item gets the chain refused,
never another answer."""

from __future__ import annotations

import json
from typing import Any

from reseal.deployment_chain import default_policy_text, deployment_leaf, freshness_policy
from reseal.deployment_chain_reader import DeploymentChainReader
from reseal.index import (
    INDEX_EMPTY_HASH,
    index_entry_digest,
    index_entry_key,
    index_key_path,
    index_leaf_hash,
    index_node_hash,
    index_root,
)
from reseal.item_layout import DeploymentLogTableReader, deployment_leaf_sk, index_node_pk, node_seq
from reseal.log import Checkpoint, Ed25519NoteSigner, leaf_hash, merkle_tree_hash, sign_checkpoint
from reseal.witness import Ed25519Cosigner, format_cosigner_key

SIGNER = Ed25519NoteSigner("reseal/test-stack", bytes(range(32)))
WITNESS = Ed25519Cosigner("reseal/test-witness", bytes(range(0x20, 0x40)))
UNWITNESSED = freshness_policy(default_policy_text(SIGNER.verifier_key))
WITNESSED = freshness_policy(
    default_policy_text(SIGNER.verifier_key, (format_cosigner_key(WITNESS.key), "https://witness.example/"))
)
NOW_MS = 1_800_000_000_000


def s(text: str) -> dict[str, str]:
    return {"S": text}


def lineage_entry(lineage_id: str, size: int) -> dict[str, Any]:
    value = {
        "treeSize": size,
        "rootHash": f"{size:02x}" * 32,
        "headRecordHash": "ab" * 32,
        "generationEpoch": 1,
        "writerPolicyDigest": None,
    }
    return {"kind": "lineage", "lineageId": lineage_id, "value": value}


def residual_entry(lineage_id: str, residual_id: str, seq: int) -> dict[str, Any]:
    return {
        "kind": "residual",
        "lineageId": lineage_id,
        "residualId": residual_id,
        "value": {"seq": seq, "recordHash": "cd" * 32},
    }


def index_items(entries: list[dict[str, Any]]) -> tuple[bytes, list[dict[str, Any]]]:
    """The index of ``entries``: its root and one item per node, as the integrator stores them."""
    leaves = {index_key_path(index_entry_key(e)): e for e in entries}
    ordered = sorted(leaves)
    items: list[dict[str, Any]] = []

    def bit(path: bytes, depth: int) -> int:
        return (path[depth >> 3] >> (7 - (depth & 7))) & 1

    def subtree(lo: int, hi: int, depth: int) -> bytes:
        if hi == lo:
            return INDEX_EMPTY_HASH
        if hi - lo == 1:
            entry = leaves[ordered[lo]]
            h = index_leaf_hash(ordered[lo], index_entry_digest(entry))
            items.append({"pk": s(index_node_pk(h.hex())), "sk": s("NODE"), "node": s("L" + json.dumps(entry))})
            return h
        split = next((i for i in range(lo, hi) if bit(ordered[i], depth) == 1), hi)
        left, right = subtree(lo, split, depth + 1), subtree(split, hi, depth + 1)
        h = index_node_hash(left, right)
        items.append({"pk": s(index_node_pk(h.hex())), "sk": s("NODE"), "node": s(f"I{left.hex()}{right.hex()}")})
        return h

    root = subtree(0, len(ordered), 0)
    assert root == index_root(entries)
    return root, items


def deployment_items(roots: list[bytes], published: str | None) -> list[dict[str, Any]]:
    """The deployment log over ``roots``: leaf items carrying their completed nodes, and the head."""
    leaves = [deployment_leaf(r) for r in roots]
    items = []
    for i, root in enumerate(roots):
        nodes = []
        level = 0
        while (i + 1) % (2**level) == 0:
            j = (i + 1) // 2**level - 1
            nodes.append(merkle_tree_hash(leaves[j * 2**level : (j + 1) * 2**level]).hex())
            assert node_seq(level, j) == i
            level += 1
        items.append(
            {
                "pk": s("DEPLOYMENT#log"),
                "sk": s(deployment_leaf_sk(i)),
                "indexRoot": s(root.hex()),
                "nodes": s(json.dumps(nodes)),
            }
        )
    checkpoint = sign_checkpoint(Checkpoint("reseal/test-stack", len(roots), merkle_tree_hash(leaves)), SIGNER)
    head = {
        "pk": s("DEPLOYMENT#log"),
        "sk": s("HEAD"),
        "size": {"N": str(len(roots))},
        "checkpoint": s(checkpoint),
        "frontier": s("[]"),
        "indexRoot": s(roots[-1].hex()),
    }
    if published is not None:
        head["published"] = s(published if published else checkpoint)
    return [*items, head]


class Table:
    """``get_item`` and ``batch_get_item`` over a dict of items."""

    def __init__(self, items: list[dict[str, Any]]) -> None:
        self.items = {(i["pk"]["S"], i["sk"]["S"]): i for i in items}

    def get_item(self, **args: Any) -> dict[str, Any]:
        item = self.items.get((args["Key"]["pk"]["S"], args["Key"]["sk"]["S"]))
        return {} if item is None else {"Item": item}

    def batch_get_item(self, RequestItems: dict[str, Any]) -> dict[str, Any]:
        ((table, request),) = RequestItems.items()
        keys = [(k["pk"]["S"], k["sk"]["S"]) for k in request["Keys"]]
        return {"Responses": {table: [self.items[k] for k in keys if k in self.items]}}


ENTRIES = [lineage_entry("lineage-a", 3), residual_entry("lineage-a", "r-0", 0), lineage_entry("lineage-b", 1)]
ROOT, NODES = index_items(ENTRIES)
EARLIER, EARLIER_NODES = index_items(ENTRIES[2:])
ROOTS = [EARLIER, index_items(ENTRIES[:1])[0], ROOT]


def reader(items: list[dict[str, Any]], policy: Any = UNWITNESSED) -> tuple[DeploymentChainReader, Table]:
    table = Table(items)
    return DeploymentChainReader(DeploymentLogTableReader(table, "t"), lambda: policy, lambda: NOW_MS), table


def honest(published: str | None = "") -> list[dict[str, Any]]:
    return [*NODES, *EARLIER_NODES, *deployment_items(ROOTS, published)]


def test_presence_and_absence_are_proven_under_the_last_leaf() -> None:
    chain_reader, _ = reader(honest())
    proven = chain_reader.read("lineage-a", "r-0")
    assert proven.kind == "PROVEN", proven.reason
    assert proven.lineage == ENTRIES[0]["value"] and proven.residual == ENTRIES[1]["value"]
    assert proven.checkpoint is not None and proven.checkpoint.size == 3
    absent = chain_reader.read("lineage-a", "r-9")
    assert (absent.kind, absent.absent, absent.lineage) == ("ABSENT", "residual", ENTRIES[0]["value"])
    nobody = chain_reader.read("lineage-z")
    assert (nobody.kind, nobody.absent) == ("ABSENT", "lineage")


def test_a_hidden_or_edited_index_node_refuses_the_chain() -> None:
    chain_reader, table = reader(honest())
    address = index_node_pk(ROOT.hex())
    del table.items[(address, "NODE")]
    assert chain_reader.read("lineage-a").refusal == "INDEX_PROOF_INVALID"
    chain_reader, table = reader(honest())
    leaf = next(
        i
        for i in NODES
        if i["node"]["S"].startswith("L") and '"lineage-a"' in i["node"]["S"] and "treeSize" in i["node"]["S"]
    )
    edited = json.loads(leaf["node"]["S"][1:])
    edited["value"]["treeSize"] = 99
    table.items[(leaf["pk"]["S"], "NODE")] = {**leaf, "node": s("L" + json.dumps(edited))}
    found = chain_reader.read("lineage-a")
    assert (found.kind, found.refusal) == ("REFUSED", "INDEX_PROOF_INVALID") and "edited" in found.reason


def test_a_hidden_leaf_or_a_rolled_back_leaf_root_is_not_the_last_leaf() -> None:
    chain_reader, table = reader(honest())
    del table.items[("DEPLOYMENT#log", deployment_leaf_sk(1))]  # a node of the inclusion proof
    assert chain_reader.read("lineage-a").refusal == "LEAF_NOT_LAST"
    chain_reader, table = reader(honest())
    table.items[("DEPLOYMENT#log", deployment_leaf_sk(2))]["indexRoot"] = s(EARLIER.hex())
    assert chain_reader.read("lineage-a").refusal == "LEAF_NOT_LAST"


def test_no_head_is_unpublished_unwitnessed_and_refused_witnessed() -> None:
    items = [i for i in honest() if i["sk"]["S"] != "HEAD"]
    assert reader(items)[0].read("lineage-a").kind == "UNPUBLISHED"
    refused = reader(items, WITNESSED)[0].read("lineage-a")
    assert (refused.kind, refused.refusal) == ("REFUSED", "POLICY_NOT_MET")


def test_a_removed_published_note_is_not_unpublished() -> None:
    # The head stands: unwitnessed, its log-signed checkpoint serves; witnessed, fail closed
    # (docs/deployment-log.md, "Clients").
    items = honest(None)
    assert reader(items)[0].read("lineage-a").kind == "PROVEN"
    refused = reader(items, WITNESSED)[0].read("lineage-a")
    assert (refused.kind, refused.refusal) == ("REFUSED", "POLICY_NOT_MET")
    head = next(i for i in items if i["sk"]["S"] == "HEAD")
    del head["checkpoint"]
    stripped = reader(items)[0].read("lineage-a")
    assert (stripped.kind, stripped.refusal) == ("REFUSED", "POLICY_NOT_MET")


def test_a_witnessed_chain_needs_a_fresh_cosignature() -> None:
    items = honest()
    head = next(i for i in items if i["sk"]["S"] == "HEAD")
    note = head["published"]["S"]
    body = note.split("\n\n")[0] + "\n"
    head["published"] = s(note + WITNESS.cosign(body, NOW_MS // 1000 - 5))
    found = reader(items, WITNESSED)[0].read("lineage-a")
    assert found.kind == "PROVEN" and found.quorum_time == NOW_MS // 1000 - 5
    head["published"] = s(note + WITNESS.cosign(body, NOW_MS // 1000 - 181))
    assert reader(items, WITNESSED)[0].read("lineage-a").refusal == "COSIGNATURES_TOO_OLD"
    assert leaf_hash(deployment_leaf(ROOT))  # the leaf hash the inclusion proof folds from


def test_an_older_published_note_does_not_roll_the_answer_back_unwitnessed() -> None:
    # Under quorum none both head notes are the log's: the larger that verifies is read, once the
    # smaller is shown its prefix; two histories are FORK (docs/deployment-log.md, "Clients", item 2).
    leaves = [deployment_leaf(r) for r in ROOTS]
    older = sign_checkpoint(Checkpoint("reseal/test-stack", 2, merkle_tree_hash(leaves[:2])), SIGNER)
    items = honest()
    head = next(i for i in items if i["sk"]["S"] == "HEAD")
    head["published"] = s(older)
    found = reader(items)[0].read("lineage-a")
    assert found.kind == "PROVEN" and found.checkpoint is not None and found.checkpoint.size == 3
    forked = sign_checkpoint(Checkpoint("reseal/test-stack", 2, b"\x07" * 32), SIGNER)
    head["published"] = s(forked)
    refused = reader(items)[0].read("lineage-a")
    assert (refused.kind, refused.refusal) == ("REFUSED", "FORK")
    stranger = Ed25519NoteSigner("reseal/test-stack", bytes(range(1, 33)))
    head["published"] = s(sign_checkpoint(Checkpoint("reseal/test-stack", 9, b"\x07" * 32), stranger))
    # A note no policy log key verifies is an edited head item: refused, never skipped for the other.
    unverified = reader(items)[0].read("lineage-a")
    assert (unverified.kind, unverified.refusal) == ("REFUSED", "POLICY_NOT_MET")
    assert "published note does not verify" in unverified.reason


def test_a_garbled_head_checkpoint_beside_an_older_published_note_is_refused() -> None:
    # docs/deployment-log.md, "Clients", item 2: the same rule as client/head-note.ts, either policy.
    leaves = [deployment_leaf(r) for r in ROOTS]
    older = sign_checkpoint(Checkpoint("reseal/test-stack", 2, merkle_tree_hash(leaves[:2])), SIGNER)
    body = older.split("\n\n")[0] + "\n"
    items = honest()
    head = next(i for i in items if i["sk"]["S"] == "HEAD")
    head["published"] = s(older + WITNESS.cosign(body, NOW_MS // 1000 - 5))
    control = reader(items, WITNESSED)[0].read("lineage-a")
    assert control.kind == "PROVEN" and control.checkpoint is not None and control.checkpoint.size == 2
    head["checkpoint"] = s(head["checkpoint"]["S"][:40] + "garbled\n")
    for policy in (WITNESSED, UNWITNESSED):
        refused = reader(items, policy)[0].read("lineage-a")
        assert (refused.kind, refused.refusal) == ("REFUSED", "POLICY_NOT_MET")
        assert "checkpoint note does not verify" in refused.reason
