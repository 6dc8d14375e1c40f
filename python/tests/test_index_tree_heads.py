"""Lineage tree heads from the index (docs/deployment-log.md, "Clients"; docs/python.md, "Tree
heads from the index"): a lineage head item that carries no signed lineage checkpoint is read
through the lineage's entry in the index under the authenticated deployment checkpoint. The
records are the sealed records of test/vectors/seal.json, stored with their tree nodes in the
table layout the TypeScript codec writes; the index and the deployment log are built over them as
the integrator builds them (test_deployment_chain_reader's fixtures)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import test_deployment_chain_reader as fixtures
from conftest import run_cli, vectors
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import reseal
import reseal.client as client_module
from reseal import (
    InvalidInputError,
    LogVerificationError,
    NotIntegratedError,
    ResealClient,
    UnverifiedOutcomeError,
    VerificationVerdict,
    verify_receipt,
)
from reseal.adapters.binding import ResealBinding
from reseal.checkpoint_store import MemoryCheckpointStore
from reseal.client import PublishedWrite
from reseal.item_layout import LineageKeys, index_node_pk, node_seq
from reseal.log import Checkpoint, checkpoint_origin, merkle_tree_hash, sign_checkpoint
from reseal.stack import PinnedStack, StackOutputs
from reseal.writer_key import WriterKey

SEAL = vectors("seal.json")
LINEAGE: str = SEAL["lineageId"]
RECORDS: list[dict[str, Any]] = [r["record"] for r in SEAL["records"]]
LEAVES = [bytes.fromhex(r["recordHash"]) for r in RECORDS]
STACK = PinnedStack(
    "test-stack",
    StackOutputs("t", "queue", "bus", "mac", "log", "guard", "sealer", "reseal/test-stack"),
    fixtures.SIGNER.verifier_key,
    fixtures.SIGNER.verifier_key,
    fixtures.SIGNER.verifier_key,
)
ORIGIN = checkpoint_origin("reseal/test-stack", LINEAGE)
s = fixtures.s


def lineage_entry(size: int) -> dict[str, Any]:
    header = RECORDS[size - 1]["header"]
    value = {
        "treeSize": size,
        "rootHash": merkle_tree_hash(LEAVES[:size]).hex(),
        "headRecordHash": RECORDS[size - 1]["recordHash"],
        "generationEpoch": header["generationEpoch"],
        "writerPolicyDigest": None,
    }
    return {"kind": "lineage", "lineageId": LINEAGE, "value": value}


def residual_entry(seq: int) -> dict[str, Any]:
    record = RECORDS[seq]
    value = {"seq": seq, "recordHash": record["recordHash"]}
    return {"kind": "residual", "lineageId": LINEAGE, "residualId": record["header"]["residualId"], "value": value}


def lineage_items(stored: int, checkpoint: str | None = None) -> list[dict[str, Any]]:
    """Records 0…stored−1 with their tree nodes, their residual-id markers and a head item without
    a signed checkpoint (or with ``checkpoint``)."""
    pk = s(LineageKeys.lineage(LINEAGE))
    items = []
    for seq in range(stored):
        nodes = []
        level = 0
        while (seq + 1) % (2**level) == 0:
            j = (seq + 1) // 2**level - 1
            nodes.append(merkle_tree_hash(LEAVES[j * 2**level : (j + 1) * 2**level]).hex())
            assert node_seq(level, j) == seq
            level += 1
        record = RECORDS[seq]
        items.append(
            {"pk": pk, "sk": s(LineageKeys.record(seq)), "record": s(json.dumps(record)), "nodes": s(json.dumps(nodes))}
        )
        items.append(
            {
                "pk": pk,
                "sk": s(LineageKeys.residual(record["header"]["residualId"])),
                "lineageId": s(LINEAGE),
                "seq": {"N": str(seq)},
            }
        )
    last = RECORDS[stored - 1]
    head = {
        "pk": pk,
        "sk": s(LineageKeys.HEAD),
        "seq": {"N": str(stored - 1)},
        "recordHash": s(last["recordHash"]),
        "generationEpoch": {"N": str(last["header"]["generationEpoch"])},
        "header": s(json.dumps(last["header"])),
        "frontier": s("[]"),
    }
    if checkpoint is not None:
        head["checkpoint"] = s(checkpoint)
    return [*items, head]


def deployment(indexed: int | None) -> list[dict[str, Any]]:
    """The index and deployment log: another lineage integrated first, then this one at ``indexed``
    records (``None``: never integrated)."""
    other = [fixtures.lineage_entry("lineage-b", 1)]
    entries = other if indexed is None else [*other, lineage_entry(indexed), *map(residual_entry, range(indexed))]
    first, first_nodes = fixtures.index_items(other)
    root, nodes = fixtures.index_items(entries)
    roots = [first] if indexed is None else [first, root]
    return [*first_nodes, *nodes, *fixtures.deployment_items(roots, "")]


class Table(fixtures.Table):
    """The lineage table's reads over a dict of items (GetItem, BatchGetItem, Query by sort key)."""

    def query(self, **args: Any) -> dict[str, Any]:
        values = args["ExpressionAttributeValues"]
        low, high = values[":first"]["S"], values[":last"]["S"]
        keys = sorted(
            (k for k in self.items if k[0] == values[":pk"]["S"] and low <= k[1] <= high),
            reverse=not args.get("ScanIndexForward", True),
        )
        return {"Items": [self.items[k] for k in keys[: args.get("Limit", len(keys))]]}


def client(
    items: list[dict[str, Any]], *, freshness: bool = True, checkpoints: MemoryCheckpointStore | None = None
) -> tuple[ResealClient, Table]:
    table = Table(items)
    return ResealClient(
        STACK,
        dynamodb=table,
        sqs=None,
        events=None,
        policy=fixtures.UNWITNESSED,
        freshness=freshness,
        now_ms=lambda: fixtures.NOW_MS,
        checkpoints=checkpoints,
    ), table


def test_records_are_proven_in_the_lineage_head_the_index_holds() -> None:
    reader, _ = client([*lineage_items(2), *deployment(2)])
    records, head = reader.proven_records(LINEAGE)
    assert [r["recordHash"] for r in records] == [r["recordHash"] for r in RECORDS]
    assert head is not None and head.note is None and (head.size, head.root_hash) == (2, merkle_tree_hash(LEAVES))
    latest = reader.latest_checkpoint(LINEAGE)
    assert latest is not None and latest.note is None and latest.size == 2


def test_records_past_the_indexed_head_are_sealed_awaiting_integration() -> None:
    reader, _ = client([*lineage_items(2), *deployment(1)])
    records, head = reader.proven_records(LINEAGE)
    assert [r["recordHash"] for r in records] == [RECORDS[0]["recordHash"]] and head is not None and head.size == 1
    with pytest.raises(NotIntegratedError, match="past the lineage head the index holds"):
        reader.receipt(LINEAGE, 1)
    # Not indexed at all: nothing is proven, and a lineage with records is never shown empty.
    reader, _ = client([*lineage_items(2), *deployment(None)])
    with pytest.raises(LogVerificationError) as waiting:
        reader.proven_records(LINEAGE)
    assert waiting.value.verdict == VerificationVerdict.UNVERIFIED_TAMPER_RISK
    assert waiting.value.reason.startswith("sealed, awaiting integration")
    assert "not indexed yet as of deployment checkpoint" in waiting.value.reason
    with pytest.raises(NotIntegratedError, match="not in the index"):
        reader.receipt(LINEAGE, 0)


def test_a_deleted_deployment_head_never_empties_a_lineage_with_records() -> None:
    # docs/frameworks.md: a table writer deletes the deployment log's HEAD item
    # (docs/deployment-log.md, "Stored items"); unwitnessed and cold, that reads as "nothing
    # published", so the records are sealed, awaiting integration: raised, never ([], None).
    reader, table = client([*lineage_items(2), *deployment(2)])
    assert len(reader.proven_records(LINEAGE)[0]) == 2
    del table.items[("DEPLOYMENT#log", "HEAD")]
    with pytest.raises(LogVerificationError) as raised:
        reader.proven_records(LINEAGE)
    assert raised.value.verdict == VerificationVerdict.UNVERIFIED_TAMPER_RISK
    assert raised.value.reason == (
        "sealed, awaiting integration: past the tree head the index holds (0 records, no deployment checkpoint "
        "published); verify again after the next integration"
    )
    # The framework adapters read through the binding: empty memory is never shown either.
    binding = ResealBinding(
        ResealClient(
            STACK,
            dynamodb=table,
            sqs=None,
            events=None,
            writer=WriterKey("writer-1", Ed25519PrivateKey.generate()),
            policy=fixtures.UNWITNESSED,
            now_ms=lambda: fixtures.NOW_MS,
        ),
        LINEAGE,
        session_id="session-1",
        generation_epoch=1,
    )
    with pytest.raises(LogVerificationError, match="sealed, awaiting integration"):
        binding.read()


def test_only_a_lineage_with_no_head_and_no_records_is_empty() -> None:
    reader, _ = client(deployment(None))  # published, another lineage indexed
    assert reader.proven_records(LINEAGE) == ([], None)
    reader, _ = client([])  # nothing published either
    assert reader.proven_records(LINEAGE) == ([], None)


def test_a_rollback_below_the_indexed_head_is_not_newest() -> None:
    # The table writer deletes record 1 and puts the head of one record back (no signature to forge).
    reader, _ = client([*lineage_items(1), *deployment(2)])
    with pytest.raises(LogVerificationError) as raised:
        reader.proven_records(LINEAGE)
    assert raised.value.verdict == VerificationVerdict.UNVERIFIED_TAMPER_RISK
    assert raised.value.reason.startswith("NOT_NEWEST")


def test_a_head_s_signed_checkpoint_never_outranks_the_index() -> None:
    # An older, genuinely signed head of one record put back after the index took two.
    older = sign_checkpoint(Checkpoint(ORIGIN, 1, merkle_tree_hash(LEAVES[:1])), fixtures.SIGNER)
    reader, _ = client([*lineage_items(1, older), *deployment(2)])
    with pytest.raises(LogVerificationError) as raised:
        reader.proven_records(LINEAGE)
    assert raised.value.verdict == VerificationVerdict.UNVERIFIED_TAMPER_RISK
    assert raised.value.reason.startswith("NOT_NEWEST")
    # The head's own signed checkpoint, when it is the newest, still proves (heads written before).
    current = sign_checkpoint(Checkpoint(ORIGIN, 2, merkle_tree_hash(LEAVES)), fixtures.SIGNER)
    records, head = client([*lineage_items(2, current), *deployment(2)])[0].proven_records(LINEAGE)
    assert len(records) == 2 and head is not None and head.note == current


def test_a_stale_signed_checkpoint_gives_way_to_the_index_it_agrees_with() -> None:
    # A head that claims two records but carries the signed checkpoint of one (a note carried forward
    # by a sealer that signs none): the index is the tree head, once the note is shown consistent.
    stale = sign_checkpoint(Checkpoint(ORIGIN, 1, merkle_tree_hash(LEAVES[:1])), fixtures.SIGNER)
    records, head = client([*lineage_items(2, stale), *deployment(2)])[0].proven_records(LINEAGE)
    assert len(records) == 2 and head is not None and head.note is None and head.size == 2
    records, head = client([*lineage_items(2, stale), *deployment(1)])[0].proven_records(LINEAGE)
    assert len(records) == 1 and head is not None and head.size == 1  # record 1 awaits integration
    forged = sign_checkpoint(Checkpoint(ORIGIN, 1, b"\x07" * 32), fixtures.SIGNER)
    with pytest.raises(LogVerificationError) as two:
        client([*lineage_items(2, forged), *deployment(2)])[0].proven_records(LINEAGE)
    assert two.value.verdict == VerificationVerdict.LINEAGE_BROKEN and "not shown to be one history" in two.value.reason
    # A head whose own claim matches its signed checkpoint, with a record stored past both: the
    # record past the head is no finding (docs/sealing.md, "The append's layout"); the head's tree
    # is behind the index, which holds two records: NOT_NEWEST.
    reader, table = client([*lineage_items(2, stale), *deployment(2)])
    table.items[(LineageKeys.lineage(LINEAGE), LineageKeys.HEAD)]["seq"] = {"N": "0"}
    with pytest.raises(LogVerificationError) as past:
        reader.proven_records(LINEAGE)
    assert past.value.verdict == VerificationVerdict.UNVERIFIED_TAMPER_RISK and past.value.reason.startswith(
        "NOT_NEWEST"
    )
    # At the indexed head, the record past it awaits integration: the head's tree is proven.
    reader, table = client([*lineage_items(2, stale), *deployment(1)])
    table.items[(LineageKeys.lineage(LINEAGE), LineageKeys.HEAD)]["seq"] = {"N": "0"}
    records, head = reader.proven_records(LINEAGE)
    assert len(records) == 1 and head is not None and head.size == 1


def test_an_edited_record_or_a_hidden_index_node_is_refused() -> None:
    reader, table = client([*lineage_items(2), *deployment(2)])
    item = table.items[(LineageKeys.lineage(LINEAGE), LineageKeys.record(0))]
    item["record"] = s(item["record"]["S"].replace(RECORDS[0]["header"]["sessionId"], "session-x"))
    with pytest.raises(LogVerificationError) as edited:
        reader.proven_records(LINEAGE)
    assert edited.value.verdict == VerificationVerdict.HASH_MISMATCH
    reader, table = client([*lineage_items(2), *deployment(2)])
    head = table.items[("DEPLOYMENT#log", "HEAD")]
    del table.items[(index_node_pk(head["indexRoot"]["S"]), "NODE")]
    with pytest.raises(LogVerificationError) as hidden:
        reader.proven_records(LINEAGE)
    assert hidden.value.verdict == VerificationVerdict.UNVERIFIED_TAMPER_RISK
    assert "REFUSED" in hidden.value.reason


def test_a_client_that_reads_no_deployment_log_proves_nothing_without_a_signed_checkpoint() -> None:
    reader, _ = client([*lineage_items(2), *deployment(2)], freshness=False)
    with pytest.raises(LogVerificationError, match="reads no deployment log"):
        reader.proven_records(LINEAGE)


def test_the_client_builds_a_format_2_receipt_that_verifies_offline() -> None:
    reader, _ = client([*lineage_items(2), *deployment(2)])
    receipt = reader.receipt(LINEAGE, 1)
    assert (receipt["formatVersion"], receipt["index"]["lineage"]["value"]["treeSize"]) == (2, 2)
    assert receipt["index"]["residual"]["value"] == residual_entry(1)["value"]
    checked = verify_receipt(json.dumps(receipt), policy=fixtures.UNWITNESSED.text, now_seconds=fixtures.NOW_MS // 1000)
    assert (checked.verdict, checked.format_version) == ("VERIFIED_INTACT", 2), checked.reason
    edited = json.loads(json.dumps(receipt))
    edited["index"]["lineage"]["value"]["treeSize"] = 1
    assert verify_receipt(edited, policy=fixtures.UNWITNESSED.text).verdict != "VERIFIED_INTACT"
    with pytest.raises(InvalidInputError, match="format 1 needs the lineage's signed checkpoint"):
        reader.receipt(LINEAGE, 1, format_version=1)


def test_a_receipt_built_here_verifies_in_the_typescript_cli(tmp_path: Path) -> None:
    # `reseal verify --receipt --policy` (docs/cli.md), offline, on the receipt of a headless lineage.
    reader, _ = client([*lineage_items(2), *deployment(2)])
    receipt = reader.receipt(LINEAGE, 1)
    (tmp_path / "policy.txt").write_text(fixtures.UNWITNESSED.text)
    (tmp_path / "r.json").write_text(json.dumps(receipt))
    args = ["verify", "--receipt", "r.json", "--policy", "policy.txt", "--json"]
    verified = run_cli(args, tmp_path)
    assert verified.returncode == 0, f"{verified.stdout}\n{verified.stderr}"
    assert json.loads(verified.stdout)["verdict"] == "VERIFIED_INTACT"
    receipt["index"]["residual"]["value"]["seq"] = 0
    (tmp_path / "r.json").write_text(json.dumps(receipt))
    refused = run_cli(args, tmp_path)
    assert refused.returncode == 20 and json.loads(refused.stdout)["verdict"] != "VERIFIED_INTACT", refused.stdout


def test_a_write_outcome_waits_for_the_index_then_carries_its_receipt(monkeypatch: pytest.MonkeyPatch) -> None:
    published = PublishedWrite("m", fixtures.NOW_MS, {"lineageId": LINEAGE, "residualId": "residual-1"})
    monkeypatch.setattr(client_module, "_binds_request", lambda _record, _request: True)
    reader, table = client([*lineage_items(2), *deployment(1)])
    monkeypatch.setattr(reader.table, "rejections", lambda *_, **__: [])
    monkeypatch.setattr(reader.table, "conflicts", lambda *_, **__: [])
    waiting = reader.wait_for_outcome(published, timeout_s=0)
    assert waiting.kind == "SEALED" and waiting.checkpoint is None and waiting.freshness is not None
    assert waiting.freshness.state == "SEALED_AWAITING_INTEGRATION" and waiting.seq == 1
    with pytest.raises(ValueError, match="PROVEN"):
        waiting.receipt()
    integrated = {(i["pk"]["S"], i["sk"]["S"]): i for i in deployment(2)}
    monkeypatch.setattr(reader, "_sleep", lambda _s: table.items.update(integrated))
    # A plain wait answers with the seal as it stands; a wait until proven waits for the index.
    answered = reader.wait_for_outcome(published, timeout_s=300)
    assert answered.freshness is not None and answered.freshness.state == "SEALED_AWAITING_INTEGRATION"
    proven = reader.wait_for_outcome(published, timeout_s=300, until_proven=True)
    assert proven.freshness is not None and proven.freshness.state == "PROVEN", proven.freshness
    assert proven.checkpoint is not None and proven.checkpoint.note is None
    checked = reseal.verify_receipt(proven.receipt(), STACK.log_key, now_seconds=fixtures.NOW_MS // 1000)
    assert checked.verdict == "VERIFIED_INTACT" and checked.format_version == 2, checked.reason


def test_a_refusal_signed_for_the_request_outranks_a_seal_awaiting_integration(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # docs/pipeline.md, "Polling the table": a seal past the indexed head with no signed checkpoint is
    # the table's word (a table writer can build it from the refused request); the signed refusal wins.
    published = PublishedWrite("m", fixtures.NOW_MS, {"lineageId": LINEAGE, "residualId": "residual-1"})
    monkeypatch.setattr(client_module, "_binds_request", lambda _record, _request: True)
    reader, table = client([*lineage_items(2), *deployment(1)])
    refusal = {"stage": "GUARD", "reason": "STALE_STATE", "atMs": fixtures.NOW_MS, "statement": "signed"}
    monkeypatch.setattr(reader.table, "rejections", lambda *_, **__: [refusal])
    monkeypatch.setattr(reader.table, "conflicts", lambda *_, **__: [])
    # Its statement checks and names this request (the signature checks have tests of their own).
    monkeypatch.setattr(reader, "_open_refusal", lambda _kind, _item, _request: {"reason": "STALE_STATE"})
    for until_proven in (False, True):
        outcome = reader.wait_for_outcome(published, timeout_s=0, until_proven=until_proven)
        assert (outcome.kind, outcome.refusal) == ("REJECTED", refusal), until_proven
    # The same seal once the index holds it is proven: it wins (a duplicate delivery refused after the seal).
    integrated = {(i["pk"]["S"], i["sk"]["S"]): i for i in deployment(2)}
    monkeypatch.setattr(reader, "_sleep", lambda _s: table.items.update(integrated))
    proven = reader.wait_for_outcome(published, timeout_s=300)
    assert proven.kind == "SEALED" and proven.freshness is not None and proven.freshness.state == "PROVEN"


@pytest.mark.parametrize("kind", ["CONFLICT", "REJECTED"])
def test_a_refusal_the_sealer_signed_for_a_sealed_request_is_a_tamper_finding(
    monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    # docs/pipeline.md, "Polling the table": the sealer answers a request it sealed as a duplicate, so
    # its refusal signed for this request beside the seal means the table was edited: neither stands.
    published = PublishedWrite("m", fixtures.NOW_MS, {"lineageId": LINEAGE, "residualId": "residual-1"})
    monkeypatch.setattr(client_module, "_binds_request", lambda _record, _request: True)
    reader, table = client([*lineage_items(2), *deployment(1)])
    if kind == "CONFLICT":
        refusal = {"reason": "LINEAGE_INCONSISTENT", "atMs": fixtures.NOW_MS, "statement": "signed"}
        monkeypatch.setattr(reader.table, "rejections", lambda *_, **__: [])
        monkeypatch.setattr(reader.table, "conflicts", lambda *_, **__: [refusal])
    else:
        refusal = {"stage": "SEALER", "reason": "SEAL_REFUSED", "atMs": fixtures.NOW_MS, "statement": "signed"}
        monkeypatch.setattr(reader.table, "rejections", lambda *_, **__: [refusal])
        monkeypatch.setattr(reader.table, "conflicts", lambda *_, **__: [])
    # Its statement checks and names this request (the signature checks have tests of their own).
    monkeypatch.setattr(reader, "_open_refusal", lambda _kind, _item, _request: {"reason": refusal["reason"]})
    for until_proven in (False, True):
        with pytest.raises(UnverifiedOutcomeError) as raised:
            reader.wait_for_outcome(published, timeout_s=0, until_proven=until_proven)
        assert raised.value.verdict == "UNVERIFIED_TAMPER_RISK" and raised.value.seq == 1, until_proven
        assert f"its seal (seq 1, record {RECORDS[1]['recordHash']}, SEALED_AWAITING_INTEGRATION)" in str(raised.value)
        assert f"beside a {refusal['reason']} {'conflict' if kind == 'CONFLICT' else 'rejection'}" in str(raised.value)
        assert "the sealer signed for this very request" in str(raised.value)
    # Integrated while it waits: the proven seal wins over everything.
    integrated = {(i["pk"]["S"], i["sk"]["S"]): i for i in deployment(2)}
    monkeypatch.setattr(reader, "_sleep", lambda _s: table.items.update(integrated))
    proven = reader.wait_for_outcome(published, timeout_s=300)
    assert proven.kind == "SEALED" and proven.freshness is not None and proven.freshness.state == "PROVEN"


class Events:
    def put_events(self, Entries: list[dict[str, Any]]) -> dict[str, Any]:
        self.detail = json.loads(Entries[0]["Detail"])
        return {"FailedEntryCount": 0, "Entries": [{"EventId": "e-1"}]}


def recall(
    items: list[dict[str, Any]],
    seq: int,
    monkeypatch: pytest.MonkeyPatch,
    checkpoints: MemoryCheckpointStore | None = None,
) -> reseal.RecallResult:
    """A latest recall whose stored answer proves ``seq`` with no lineage checkpoint in it."""
    reader, _ = client(items) if checkpoints is None else client(items, checkpoints=checkpoints)
    events = Events()
    reader._events = events
    env = {"DB_HOST": "db-2"}

    def answer(lineage_id: str, request_id: str) -> dict[str, Any]:
        record = RECORDS[seq]
        return {
            "requestId": request_id,
            "lineageId": lineage_id,
            "seq": seq,
            "outcome": "TRIAGED",
            "report": reseal.isolate_delta(record["manifest"], env),
            "proof": {"checkpoint": None, "seq": seq, "recordHash": record["recordHash"]},
        }

    monkeypatch.setattr(reader.table, "triage_report", answer)
    return reader.recall(LINEAGE, env, timeout_s=0)


def test_a_recall_answer_without_a_lineage_checkpoint_is_proven_in_the_indexed_head(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    proven = recall([*lineage_items(2), *deployment(2)], 1, monkeypatch)
    assert proven.end == "TRIAGED" and proven.record is not None, proven.reason
    assert proven.freshness is not None and proven.freshness.state == "PROVEN"
    assert "lineage head the index holds" in proven.reason
    assert proven.reason.endswith("(nothing kept: a rollback could not be checked)")
    # With a checkpoint store, the deployment checkpoint is kept and held to: the reason says so.
    store = MemoryCheckpointStore()
    kept = recall([*lineage_items(2), *deployment(2)], 1, monkeypatch, store)
    assert kept.end == "TRIAGED" and "nothing kept" not in kept.reason, kept.reason
    assert kept.reason.endswith(
        "(no lineage checkpoint kept; a rollback is checked against the deployment checkpoint kept in the "
        "checkpoint store: this one, of 2 leaves, is no older)"
    )
    # The latest record past the indexed head: awaiting integration, nothing of it passed on.
    waiting = recall([*lineage_items(2), *deployment(1)], 1, monkeypatch)
    assert (waiting.end, waiting.record, waiting.delta) == ("NOT_INTACT", None, None)
    assert waiting.freshness is not None and waiting.freshness.state == "SEALED_AWAITING_INTEGRATION"
    # An older record offered as the latest against the indexed head: not the target.
    stale = recall([*lineage_items(2), *deployment(2)], 0, monkeypatch)
    assert (stale.end, stale.verdict) == ("NOT_INTACT", VerificationVerdict.LINEAGE_BROKEN), stale.reason


def test_a_not_found_latest_recall_of_a_lineage_with_records_none_integrated_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # docs/verifiable-log.md, "Recall": with the deployment head deleted (or nothing integrated), a
    # stored NOT_FOUND for the latest record is contradicted by the head item's own tree, never "empty".
    items = [*lineage_items(1), *deployment(1)]
    items = [i for i in items if (i["pk"]["S"], i["sk"]["S"]) != ("DEPLOYMENT#log", "HEAD")]
    reader, _ = client(items)
    reader._events = Events()

    def answer(lineage_id: str, request_id: str) -> dict[str, Any]:
        return {"requestId": request_id, "lineageId": lineage_id, "outcome": "REFUSED", "refusalCode": "NOT_FOUND"}

    monkeypatch.setattr(reader.table, "triage_report", answer)
    got = reader.recall(LINEAGE, {"DB_HOST": "db-2"}, timeout_s=0)
    assert (got.end, got.verdict, got.record) == ("NOT_INTACT", VerificationVerdict.UNVERIFIED_TAMPER_RISK, None)
    assert "head item shows 1 records" in got.reason


def test_records_without_a_head_item_are_tampering_only_where_the_index_holds_the_lineage() -> None:
    # docs/sealing.md, "The append's layout": the records land before the head item, so records
    # with none are a first append in flight (not indexed) or a deleted head (indexed).
    head_key = (LineageKeys.lineage(LINEAGE), LineageKeys.HEAD)
    reader, table = client([*lineage_items(2), *deployment(2)])
    del table.items[head_key]
    with pytest.raises(LogVerificationError) as deleted:
        reader.proven_records(LINEAGE)
    assert deleted.value.verdict == VerificationVerdict.UNVERIFIED_TAMPER_RISK
    assert "without a head item" in deleted.value.reason and "index holds 2" in deleted.value.reason
    reader, table = client([*lineage_items(2), *deployment(None)])
    del table.items[head_key]
    with pytest.raises(LogVerificationError) as in_flight:
        reader.proven_records(LINEAGE)
    assert in_flight.value.verdict == VerificationVerdict.UNVERIFIED_TAMPER_RISK
    assert "sealed, awaiting integration" in in_flight.value.reason
