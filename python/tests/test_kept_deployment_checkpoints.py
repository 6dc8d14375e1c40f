"""Kept deployment checkpoints (docs/verifiable-log.md, "Checkpoints the client keeps";
docs/python.md, "Kept checkpoints"): a client with a checkpoint store keeps the newest deployment
checkpoint it authenticated under the log's origin and compares every chain's note with it first,
so a whole table put back to an earlier state (deployment log, index and lineage together, heads
with no signed lineage checkpoint) is refused ``DEPLOYMENT_ROLLBACK``, and two histories ``FORK``,
never ``PROVEN``; without a store each chain stands alone, as before. The table is
test_index_tree_heads' (the sealed records of test/vectors/seal.json with an index and a
deployment log built over them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import test_deployment_chain_reader as fixtures
import test_index_tree_heads as heads

import reseal
from reseal import (
    FileCheckpointStore,
    LogVerificationError,
    MemoryCheckpointStore,
    ResealClient,
    VerificationVerdict,
)
from reseal.deployment_chain import deployment_leaf
from reseal.deployment_chain_reader import DeploymentChainReader
from reseal.item_layout import DeploymentLogTableReader
from reseal.log import Checkpoint, Ed25519NoteSigner, merkle_tree_hash, open_checkpoint, sign_checkpoint

LOG = "reseal/test-stack"
"""The deployment log's origin: the key its kept checkpoint is stored under."""


def history(integrated: list[int]) -> list[dict[str, Any]]:
    """The index and deployment log after another lineage was integrated first, then this one at
    each size of ``integrated`` in turn: one leaf per integration, so a later history extends an
    earlier one (RFC 9162 consistency holds between them)."""
    other = [fixtures.lineage_entry("lineage-b", 1)]
    first, items = fixtures.index_items(other)
    roots = [first]
    for size in integrated:
        entries = [*other, heads.lineage_entry(size), *map(heads.residual_entry, range(size))]
        root, nodes = fixtures.index_items(entries)
        roots.append(root)
        items = [*items, *nodes]
    return [*items, *fixtures.deployment_items(roots, "")]


NEWER = [*heads.lineage_items(2), *history([1, 2])]
"""Two records, integrated one at a time: deployment checkpoint 3."""
ROLLED_BACK = [*heads.lineage_items(1), *history([1])]
"""The whole table as it was after the first record: deployment checkpoint 2, every item genuine."""


def client(items: list[dict[str, Any]], store: Any) -> ResealClient:
    return ResealClient(
        heads.STACK,
        dynamodb=heads.Table(items),
        sqs=None,
        events=None,
        checkpoints=store,
        policy=fixtures.UNWITNESSED,
        now_ms=lambda: fixtures.NOW_MS,
    )


def kept_size(store: Any) -> int:
    note = store.load(LOG)
    assert note is not None
    return open_checkpoint(note, fixtures.SIGNER.verifier_key, LOG).size


def test_a_whole_table_rolled_back_behind_the_kept_checkpoint_is_refused(tmp_path: Path) -> None:
    store = FileCheckpointStore(tmp_path / "checkpoints.json")
    records, head = client(NEWER, store).proven_records(heads.LINEAGE)
    assert len(records) == 2 and head is not None and head.size == 2
    assert kept_size(store) == 3
    # Without a store the rolled-back table reads as the truth (nothing in it is forged).
    records, head = client(ROLLED_BACK, None).proven_records(heads.LINEAGE)
    assert len(records) == 1 and head is not None and head.size == 1
    with pytest.raises(LogVerificationError) as raised:
        client(ROLLED_BACK, store).proven_records(heads.LINEAGE)
    assert raised.value.verdict == VerificationVerdict.UNVERIFIED_TAMPER_RISK
    assert "DEPLOYMENT_ROLLBACK" in raised.value.reason
    assert "the current checkpoint of 2 is older than the kept one of 3" in raised.value.reason
    assert kept_size(store) == 3  # nothing is kept from a refused chain


def test_every_reader_of_the_client_compares_the_kept_checkpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    store = MemoryCheckpointStore()
    client(NEWER, store).proven_records(heads.LINEAGE)
    rolled = client(ROLLED_BACK, store)
    chain = rolled._chains.read(heads.LINEAGE) if rolled._chains else None
    assert chain is not None and (chain.kind, chain.refusal) == ("REFUSED", "DEPLOYMENT_ROLLBACK")
    with pytest.raises(LogVerificationError, match="DEPLOYMENT_ROLLBACK"):
        rolled.receipt(heads.LINEAGE, 0)
    with pytest.raises(LogVerificationError, match="DEPLOYMENT_ROLLBACK"):
        rolled.latest_checkpoint(heads.LINEAGE)
    # A recall (the chain is read before the request is sent): refused, no record, no delta.
    monkeypatch.setattr(heads, "client", lambda items: (client(items, store), None))
    recalled = heads.recall(ROLLED_BACK, 0, monkeypatch)
    assert (recalled.end, recalled.verdict, recalled.record, recalled.delta) == (
        "NOT_INTACT",
        VerificationVerdict.UNVERIFIED_TAMPER_RISK,
        None,
        None,
    )
    assert recalled.freshness is not None and recalled.freshness.state == "REFUSED"
    assert "DEPLOYMENT_ROLLBACK" in recalled.freshness.reason
    # The same recall with no store is answered from the rolled-back table, as before.
    monkeypatch.setattr(heads, "client", lambda items: (client(items, None), None))
    cold = heads.recall(ROLLED_BACK, 0, monkeypatch)
    assert cold.end == "TRIAGED" and cold.freshness is not None and cold.freshness.state == "PROVEN", cold.reason


def reader(items: list[dict[str, Any]], store: Any) -> DeploymentChainReader:
    table = heads.Table(items)
    return DeploymentChainReader(
        DeploymentLogTableReader(table, "t"), lambda: fixtures.UNWITNESSED, lambda: fixtures.NOW_MS, store
    )


def test_a_newer_checkpoint_replaces_the_kept_one_and_an_older_never_does() -> None:
    store = MemoryCheckpointStore()
    assert reader(ROLLED_BACK, store).read(heads.LINEAGE).kind == "PROVEN"
    assert kept_size(store) == 2
    assert reader(NEWER, store).read(heads.LINEAGE).kind == "PROVEN"  # 3 extends 2: kept in its place
    assert kept_size(store) == 3
    refused = reader(ROLLED_BACK, store).read(heads.LINEAGE)
    assert (refused.kind, refused.refusal) == ("REFUSED", "DEPLOYMENT_ROLLBACK") and kept_size(store) == 3


def test_a_deleted_deployment_head_with_a_kept_checkpoint_is_a_rollback() -> None:
    store = MemoryCheckpointStore()
    reader(NEWER, store).read(heads.LINEAGE)
    headless = [i for i in NEWER if (i["pk"]["S"], i["sk"]["S"]) != ("DEPLOYMENT#log", "HEAD")]
    assert reader(headless, None).read(heads.LINEAGE).kind == "UNPUBLISHED"
    refused = reader(headless, store).read(heads.LINEAGE)
    assert (refused.kind, refused.refusal) == ("REFUSED", "DEPLOYMENT_ROLLBACK")
    assert "kept checkpoint 3 of reseal/test-stack" in refused.reason


def test_two_histories_or_a_kept_note_that_does_not_verify_are_a_fork() -> None:
    # A kept checkpoint of size 3 under the log key with another root: two histories at one size.
    forked = sign_checkpoint(Checkpoint(LOG, 3, b"\x07" * 32), fixtures.SIGNER)
    store = MemoryCheckpointStore()
    store.save(LOG, forked)
    refused = reader(NEWER, store).read(heads.LINEAGE)
    assert (refused.kind, refused.refusal) == ("REFUSED", "FORK") and "two roots at size 3" in refused.reason
    assert store.load(LOG) == forked
    # A kept note the log key does not verify (an edited store file): refused, never skipped.
    stranger = Ed25519NoteSigner(LOG, bytes(range(1, 33)))
    leaves = [deployment_leaf(r) for r in [fixtures.index_items([fixtures.lineage_entry("lineage-b", 1)])[0]]]
    store.save(LOG, sign_checkpoint(Checkpoint(LOG, 1, merkle_tree_hash(leaves)), stranger))
    unverified = reader(NEWER, store).read(heads.LINEAGE)
    assert (unverified.kind, unverified.refusal) == ("REFUSED", "FORK")
    assert "is not one of the log's" in unverified.reason


def test_a_write_outcome_on_a_rolled_back_table_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # wait_for_outcome reads the chain as a recall does (docs/deployment-log.md, "Clients").
    residual_id = heads.RECORDS[0]["header"]["residualId"]
    published = heads.PublishedWrite("m", fixtures.NOW_MS, {"lineageId": heads.LINEAGE, "residualId": residual_id})
    monkeypatch.setattr(heads.client_module, "_binds_request", lambda _record, _request: True)
    store = MemoryCheckpointStore()
    client(NEWER, store).proven_records(heads.LINEAGE)

    def waiting(kept: Any) -> Any:
        reader = client(ROLLED_BACK, kept)
        monkeypatch.setattr(reader.table, "rejections", lambda *_: [])
        monkeypatch.setattr(reader.table, "conflicts", lambda *_: [])
        return reader.wait_for_outcome(published, timeout_s=0)

    cold = waiting(None)
    assert cold.kind == "SEALED" and cold.freshness is not None and cold.freshness.state == "PROVEN"
    with pytest.raises(reseal.UnverifiedOutcomeError, match="DEPLOYMENT_ROLLBACK"):
        waiting(store)
