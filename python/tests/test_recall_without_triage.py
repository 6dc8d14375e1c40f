"""A recall answered by the client itself, ``recall(..., triage=False)`` (docs/verifiable-log.md,
"Recall", "Without triage"): no ``RecallRequested`` is put, the answer triage would give is built
from the client's own reads and decided by the same steps as triage's. Over the sealed records of
test/vectors/seal.json with their tree nodes and the index built over them (test_index_tree_heads'
fixtures); each case is recalled both ways over the same table and environment, triage's stored
answer written as the triage function writes it (functions/triage/triage-service.ts)."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest
import test_deployment_chain_reader as fixtures
import test_index_tree_heads as heads
import test_tenancy as tenancy
from conftest import REPO

import reseal
from reseal import VerificationVerdict
from reseal.checkpoint_store import MemoryCheckpointStore
from reseal.item_layout import LineageKeys
from reseal.log import Checkpoint, merkle_tree_hash, sign_checkpoint

LINEAGE = heads.LINEAGE
ENV = {"DB_HOST": "db-2"}
SIGNED = sign_checkpoint(Checkpoint(heads.ORIGIN, 2, merkle_tree_hash(heads.LEAVES)), fixtures.SIGNER)
"""The lineage's signed checkpoint of both records of the vectors."""
CLIENT_CLAIM = "[this client's reading of the table, not proven]"


class NoBus:
    """An EventBridge client that fails the test if anything is put on the bus."""

    def put_events(self, **_: Any) -> dict[str, Any]:
        raise AssertionError("a recall without triage put an event")


def lineage(stored: int = 2, checkpoint: str | None = None) -> list[dict[str, Any]]:
    """Records 0…stored−1 and a head item whose frontier is that of the tree before its record (as
    the sealer writes it), with ``checkpoint`` or none (a head the sealer MAC'd)."""
    items = heads.lineage_items(stored, checkpoint)
    head = next(i for i in items if i["sk"]["S"] == LineageKeys.HEAD)
    head["frontier"] = fixtures.s(json.dumps([merkle_tree_hash(heads.LEAVES[:1]).hex()] if stored == 2 else []))
    return items


def edited(items: list[dict[str, Any]], seq: int = 1) -> list[dict[str, Any]]:
    """``items`` with record ``seq``'s payload rewritten by a table writer."""
    record = json.loads(json.dumps(heads.RECORDS[seq]))
    record["payload"] = {"note": "rewritten"}
    key = (LineageKeys.lineage(LINEAGE), LineageKeys.record(seq))
    return [
        {**i, "record": fixtures.s(json.dumps(record))} if (i["pk"]["S"], i["sk"]["S"]) == key else i for i in items
    ]


def triage_answer(request_id: str, case: str, seq: int, residual_id: str = "residual-9") -> dict[str, Any]:
    """What triage stores for ``case`` over the same table (``residual_id``: the one asked)."""
    base = {"formatVersion": 1, "requestId": request_id, "lineageId": LINEAGE, "completedAtMs": fixtures.NOW_MS}
    if case == "edited":
        reason = f"record {seq}: the record's hash does not match"
        return {
            **base,
            "seq": seq,
            "residualId": None,
            "outcome": "REFUSED",
            "verification": {
                "verdict": "HASH_MISMATCH",
                "firstFailure": {"seq": seq, "verdict": "HASH_MISMATCH", "reason": reason},
            },
            "report": None,
            "proof": None,
            "refusalReason": f"record not verified (HASH_MISMATCH at seq {seq}: {reason}); triage refused",
            "refusalCode": "VERIFICATION_FAILED",
        }
    if case == "marker names no valid seq":
        reason = f"the residual-id marker of {residual_id} names no valid seq (9007199254740993)"
        return {
            **base,
            "seq": None,
            "residualId": residual_id,
            "outcome": "REFUSED",
            "verification": {
                "verdict": "LINEAGE_BROKEN",
                "firstFailure": {"seq": None, "verdict": "LINEAGE_BROKEN", "reason": reason},
            },
            "report": None,
            "proof": None,
            "refusalReason": reason,
            "refusalCode": "VERIFICATION_FAILED",
        }
    if case == "not found":
        return {
            **base,
            "seq": seq,
            "residualId": None,
            "outcome": "REFUSED",
            "verification": None,
            "report": None,
            "proof": None,
            "refusalReason": f"no record at seq {seq}: the lineage's head covers 2 records",
            "refusalCode": "NOT_FOUND",
        }
    record = heads.RECORDS[seq]
    signed = case == "signed"
    proof = {
        "checkpoint": SIGNED if signed else None,
        "treeHead": {"treeSize": 2, "rootHash": merkle_tree_hash(heads.LEAVES).hex()},
        "seq": seq,
        "recordHash": record["recordHash"],
        "inclusion": {"leafIndex": seq, "treeSize": 2, "inclusionProof": [merkle_tree_hash(heads.LEAVES[:1]).hex()]},
        "consistency": None,
    }
    return reseal.triaged_detail(base, record["header"], reseal.isolate_delta(record["manifest"], ENV), proof)


def recall_both(
    items: list[dict[str, Any]], case: str, target: dict[str, Any], *, freshness: bool = True
) -> tuple[reseal.RecallResult, reseal.RecallResult]:
    """The recall of ``target`` through triage (its answer for ``case``) and without triage, each
    by a fresh client over its own copy of ``items``."""
    seq = target.get("seq", 1)
    through, _ = heads.client(json.loads(json.dumps(items)), freshness=freshness)
    through._events = heads.Events()
    with pytest.MonkeyPatch.context() as monkeypatch:
        asked = target.get("residualId", "residual-9")
        monkeypatch.setattr(through.table, "triage_report", lambda _l, r: triage_answer(r, case, seq, asked))
        triaged = through.recall(LINEAGE, ENV, target=target, timeout_s=0)
    return triaged, direct(items, target, freshness=freshness)


def direct(
    items: list[dict[str, Any]],
    target: dict[str, Any] | None = None,
    *,
    freshness: bool = True,
    checkpoints: MemoryCheckpointStore | None = None,
) -> reseal.RecallResult:
    """A recall without triage over ``items``; any event put, or triage report read, fails the test."""
    client, _ = heads.client(json.loads(json.dumps(items)), freshness=freshness, checkpoints=checkpoints)
    client._events = NoBus()

    def no_report(*_: Any) -> Any:
        raise AssertionError("a recall without triage read a triage report")

    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(client.table, "triage_report", no_report)
        return client.recall(LINEAGE, ENV, target=target, triage=False)


def decided(result: reseal.RecallResult) -> tuple[Any, ...]:
    fresh = result.freshness
    return result.end, result.verdict, None if fresh is None else fresh.state, result.delta, result.record


BAD_MARKER = {
    "pk": fixtures.s(LineageKeys.lineage(LINEAGE)),
    "sk": fixtures.s(LineageKeys.residual("residual-9")),
    "lineageId": fixtures.s(LINEAGE),
    "seq": {"N": str(2**53 + 1)},
}
"""A residual-id marker a table writer edited to name no valid seq (past 2^53 − 1)."""

CASES = [
    # (what, the table, triage's answer, target, freshness checked)
    ("signed head, latest", [*lineage(2, SIGNED), *heads.deployment(2)], "signed", {"latest": True}, True),
    ("signed head, seq 1", [*lineage(2, SIGNED), *heads.deployment(2)], "signed", {"seq": 1}, True),
    ("MAC'd head, integrated", [*lineage(2), *heads.deployment(2)], "indexed", {"latest": True}, True),
    ("MAC'd head, by residual id", [*lineage(2), *heads.deployment(2)], "indexed", {"residualId": "residual-1"}, True),
    ("MAC'd head, awaiting integration", [*lineage(2), *heads.deployment(1)], "indexed", {"latest": True}, True),
    ("MAC'd head, rolled back", [*lineage(1), *heads.deployment(2)], "indexed", {"latest": True}, True),
    ("edited record, signed head", edited(lineage(2, SIGNED)), "edited", {"latest": True}, False),
    ("edited record, MAC'd head", edited([*lineage(2), *heads.deployment(2)]), "edited", {"latest": True}, True),
    ("no such seq", [*lineage(2, SIGNED), *heads.deployment(2)], "not found", {"seq": 5}, True),
]


@pytest.mark.parametrize(("what", "items", "case", "target", "freshness"), CASES, ids=[c[0] for c in CASES])
def test_the_recall_without_triage_decides_as_the_recall_through_triage(
    what: str, items: list[dict[str, Any]], case: str, target: dict[str, Any], freshness: bool
) -> None:
    triaged, answered = recall_both(items, case, target, freshness=freshness)
    assert decided(answered) == decided(triaged), (answered.reason, triaged.reason)
    assert answered.request_id.startswith("direct-")
    assert "triage" not in answered.reason, answered.reason
    if answered.end == "TRIAGED":
        assert answered.reason == triaged.reason
        assert answered.report["outcome"] == "TRIAGED" and answered.report["requestId"] == answered.request_id


def test_a_proven_recall_without_triage_carries_the_record_and_the_delta_of_this_environment() -> None:
    got = direct([*lineage(2, SIGNED), *heads.deployment(2)])
    assert (got.end, got.verdict) == ("TRIAGED", VerificationVerdict.VERIFIED_INTACT), got.reason
    assert got.record is not None and got.record["recordHash"] == heads.RECORDS[1]["recordHash"]
    assert got.delta == reseal.isolate_delta(heads.RECORDS[1]["manifest"], ENV)
    assert got.freshness is not None and got.freshness.state == "PROVEN"
    assert got.checkpoint is not None and got.checkpoint.note == SIGNED


def test_the_client_s_answer_proves_the_record_from_the_kept_checkpoint_and_keeps_the_newer() -> None:
    store = MemoryCheckpointStore()
    store.save(
        heads.ORIGIN, sign_checkpoint(Checkpoint(heads.ORIGIN, 1, merkle_tree_hash(heads.LEAVES[:1])), fixtures.SIGNER)
    )
    got = direct([*lineage(2, SIGNED), *heads.deployment(2)], checkpoints=store)
    assert got.end == "TRIAGED" and "consistent with the kept one of 1" in got.reason, got.reason
    assert got.report["proof"]["consistency"] == {
        "fromSize": 1,
        "toSize": 2,
        "proof": [merkle_tree_hash(heads.LEAVES[1:]).hex()],
    }
    assert store.load(heads.ORIGIN) == SIGNED


def test_an_edited_record_is_a_tamper_finding_worded_as_the_client_s_reading() -> None:
    got = direct(edited(lineage(2, SIGNED)), freshness=False)
    # The verdict the answer claims, passed on hedged (the reason says it is not proven), as the
    # TypeScript recallDirect passes it on: NOT_INTACT, never an answer to act on.
    assert (got.end, got.verdict, got.record, got.delta) == (
        "NOT_INTACT",
        VerificationVerdict.HASH_MISMATCH,
        None,
        None,
    )
    assert got.reason == f"refused (VERIFICATION_FAILED): [stored text: see untrusted] {CLIENT_CLAIM}"
    # The words read from the table stay out of the reason, escaped in `untrusted`.
    assert got.untrusted is not None and got.untrusted.startswith("record 1: ")
    assert got.report["refusalCode"] == "VERIFICATION_FAILED" and got.report["proof"] is None


def test_a_refusal_the_log_cannot_contradict_is_passed_on_as_the_client_s_reading() -> None:
    got = direct(lineage(2, SIGNED), {"seq": 5}, freshness=False)
    assert (got.end, got.verdict) == ("NOT_FOUND", None)
    assert got.reason == f"refused (NOT_FOUND): [stored text: see untrusted] {CLIENT_CLAIM}"
    assert got.untrusted == (
        "no record at seq 5: the lineage's head covers 2 records (if it was just appended, recall again)"
    )
    # A seq past the indexed head: the index says nothing of it either, so it stays the client's reading.
    assert direct([*lineage(2, SIGNED), *heads.deployment(2)], {"seq": 5}).reason == got.reason
    # A residual id the index proves absent: the reason says so instead.
    absent = direct([*lineage(2, SIGNED), *heads.deployment(2)], {"residualId": "residual-never"})
    assert absent.end == "NOT_FOUND" and absent.reason.endswith("[proven by the index]"), absent.reason
    assert absent.freshness is not None and absent.freshness.state == "ABSENT"


def test_an_untriageable_manifest_is_refused_with_the_proof_and_decided_untriageable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def untriageable(*_: Any) -> Any:
        raise reseal.InvalidInputError("manifest", [reseal.InputIssue("formatVersion", "expected 1 or 2")])

    monkeypatch.setattr("reseal.local_recall_answer.isolate_delta", untriageable)
    monkeypatch.setattr("reseal.client.isolate_delta", untriageable)
    got = direct([*lineage(2, SIGNED), *heads.deployment(2)])
    assert (got.end, got.verdict, got.delta) == ("UNTRIAGEABLE", VerificationVerdict.VERIFIED_INTACT, None)
    assert got.record is not None and got.report["refusalCode"] == "MANIFEST_UNTRIAGEABLE"
    assert got.report["residualId"] == "residual-1" and got.report["proof"]["seq"] == 1


_TS_SCHEMA = """
import { TriageCompletedDetailSchema } from './shared/pipeline/triage-completed-detail';
import { readFileSync } from 'node:fs';
const answers = JSON.parse(readFileSync(0, 'utf8'));
console.log(JSON.stringify(answers.map((a: unknown) => TriageCompletedDetailSchema.safeParse(a).error?.issues ?? null)));
"""


def test_the_client_s_answers_are_triage_completed_details_to_the_typescript_schema() -> None:
    answers = [
        direct([*lineage(2, SIGNED), *heads.deployment(2)]).report,
        direct([*lineage(2), *heads.deployment(2)]).report,
        direct(edited(lineage(2, SIGNED)), freshness=False).report,
        direct(lineage(2, SIGNED), {"seq": 5}, freshness=False).report,
        direct(lineage(2, SIGNED), {"residualId": "residual-never"}, freshness=False).report,
    ]
    done = subprocess.run(
        [str(REPO / "node_modules" / ".bin" / "tsx"), "--eval", _TS_SCHEMA],
        cwd=REPO,
        input=json.dumps(answers),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [None] * len(answers)


def test_a_recall_without_triage_of_another_tenant_s_lineage_reads_nothing() -> None:
    client, table, _ = tenancy.tenant_client("acme")
    with pytest.raises(reseal.TenantMismatchError):
        client.recall("beta/agent-1", {}, triage=False)
    assert table.calls == []


def marked(items: list[dict[str, Any]], residual_id: str, seq: int) -> list[dict[str, Any]]:
    """``items`` with the residual-id marker of ``residual_id`` put by a table writer at ``seq``."""
    key = (LineageKeys.lineage(LINEAGE), LineageKeys.residual(residual_id))
    marker = {
        "pk": fixtures.s(key[0]),
        "sk": fixtures.s(key[1]),
        "lineageId": fixtures.s(LINEAGE),
        "seq": {"N": str(seq)},
    }
    return [*(i for i in items if (i["pk"]["S"], i["sk"]["S"]) != key), marker]


@pytest.mark.parametrize(
    ("what", "items", "freshness"),
    [
        ("signed head", lineage(2, SIGNED), False),
        ("MAC'd head, integrated", [*lineage(2), *heads.deployment(2)], True),
    ],
    ids=["signed head", "MAC'd head, integrated"],
)
def test_a_marker_edited_to_another_seq_is_looked_past_and_the_record_of_the_residual_id_answered(
    what: str, items: list[dict[str, Any]], freshness: bool
) -> None:
    got = direct(marked(items, "residual-1", 0), {"residualId": "residual-1"}, freshness=freshness)
    assert (got.end, got.verdict) == ("TRIAGED", VerificationVerdict.VERIFIED_INTACT), got.reason
    assert got.record is not None and got.record["header"]["monotonicSequenceNumber"] == 1
    if freshness:
        assert got.freshness is not None and got.freshness.state == "PROVEN"


def test_a_marker_edited_to_a_record_of_another_residual_id_none_seals_is_the_client_s_reading() -> None:
    got = direct(marked(lineage(2, SIGNED), "residual-9", 0), {"residualId": "residual-9"}, freshness=False)
    assert (got.end, got.verdict, got.record) == ("NOT_INTACT", VerificationVerdict.UNVERIFIED_TAMPER_RISK, None)
    assert CLIENT_CLAIM in got.reason and "LINEAGE_BROKEN" not in got.reason, got.reason
    assert got.untrusted is not None and "no record proven in the head's tree of 2 seals it" in got.untrusted


def test_a_marker_naming_no_valid_seq_is_no_usable_marker_and_nothing_sealing_it_is_not_found() -> None:
    # Triage refuses it VERIFICATION_FAILED, LINEAGE_BROKEN (docs/pipeline.md, "Outcomes and
    # retries"), passed on hedged; the client's own answer treats it as a deleted marker: the index
    # proves residual-9 absent, so NOT_FOUND, ABSENT as of the checkpoint. The TypeScript
    # recallDirect answers the same.
    items = [*lineage(2, SIGNED), *heads.deployment(2), BAD_MARKER]
    triaged, got = recall_both(items, "marker names no valid seq", {"residualId": "residual-9"})
    # Through triage, nothing found either: its refusal stands, hedged.
    assert (triaged.end, triaged.verdict) == ("NOT_INTACT", VerificationVerdict.LINEAGE_BROKEN), triaged.reason
    assert "not proven" in triaged.reason, triaged.reason
    assert (got.end, got.verdict, got.record) == ("NOT_FOUND", None, None), got.reason
    assert got.freshness is not None and got.freshness.state == "ABSENT", got.freshness
    assert got.report["refusalCode"] == "NOT_FOUND" and got.report["seq"] is None
    assert "names no valid seq" in got.report["refusalReason"]


@pytest.mark.parametrize(
    ("what", "items", "freshness", "said"),
    [
        ("signed head", lineage(2, SIGNED), False, "residual residual-1 is sealed at seq 1, proven in"),
        (
            "MAC'd head, integrated",
            [*lineage(2), *heads.deployment(2)],
            True,
            "the index maps residual residual-1 to seq 1",
        ),
    ],
    ids=["signed head", "MAC'd head, integrated"],
)
def test_a_seal_a_marker_naming_no_valid_seq_hides_is_proven_as_for_a_deleted_marker_with_or_without_triage(
    what: str, items: list[dict[str, Any]], freshness: bool, said: str
) -> None:
    key = (LineageKeys.lineage(LINEAGE), LineageKeys.residual("residual-1"))
    deleted = [i for i in items if (i["pk"]["S"], i["sk"]["S"]) != key]
    triaged, got = recall_both(
        marked(items, "residual-1", -1), "marker names no valid seq", {"residualId": "residual-1"}, freshness=freshness
    )
    gone = direct(deleted, {"residualId": "residual-1"}, freshness=freshness)
    assert (got.end, got.verdict, got.record) == ("NOT_INTACT", VerificationVerdict.UNVERIFIED_TAMPER_RISK, None)
    assert said in got.reason and CLIENT_CLAIM not in got.reason, got.reason
    assert decided(got) == decided(gone) and got.reason == gone.reason, (got.reason, gone.reason)
    # Triage refuses it LINEAGE_BROKEN; the client reads the same marker and proves the same seal.
    assert decided(triaged) == decided(got) and triaged.reason == got.reason, (triaged.reason, got.reason)


def forged_node(items: list[dict[str, Any]], seq: int, level: int = 0) -> list[dict[str, Any]]:
    """``items`` with node ``level`` stored with record ``seq`` rewritten by a table writer."""
    key = (LineageKeys.lineage(LINEAGE), LineageKeys.record(seq))
    out = []
    for i in items:
        if (i["pk"]["S"], i["sk"]["S"]) == key:
            nodes = json.loads(i["nodes"]["S"])
            nodes[level] = "ab" * 32
            i = {**i, "nodes": fixtures.s(json.dumps(nodes))}
        out.append(i)
    return out


def kept(size: int) -> MemoryCheckpointStore:
    """A checkpoint store keeping the lineage's signed checkpoint of ``size`` records."""
    store = MemoryCheckpointStore()
    store.save(
        heads.ORIGIN,
        sign_checkpoint(Checkpoint(heads.ORIGIN, size, merkle_tree_hash(heads.LEAVES[:size])), fixtures.SIGNER),
    )
    return store


def test_a_forged_node_under_a_mac_d_head_is_the_client_s_reading_never_a_proven_fork() -> None:
    got = direct(forged_node([*lineage(2), *heads.deployment(2)], 1), checkpoints=kept(1))
    assert (got.end, got.record, got.delta) == ("NOT_INTACT", None, None)
    assert got.verdict != VerificationVerdict.VERIFIED_INTACT
    assert CLIENT_CLAIM in got.reason, got.reason


def test_a_rollback_to_an_older_signed_checkpoint_is_a_proven_truncation() -> None:
    older = sign_checkpoint(Checkpoint(heads.ORIGIN, 1, merkle_tree_hash(heads.LEAVES[:1])), fixtures.SIGNER)
    got = direct(lineage(1, older), freshness=False, checkpoints=kept(2))
    assert (got.end, got.verdict, got.record) == ("NOT_INTACT", VerificationVerdict.TRUNCATION_DETECTED, None)
    assert got.reason == "the log shrank from 2 to 1 records (rolled back)", got.reason


def test_a_forged_consistency_node_between_two_signed_checkpoints_is_not_called_a_fork() -> None:
    got = direct(forged_node(lineage(2, SIGNED), 1), freshness=False, checkpoints=kept(1))
    assert (got.end, got.record) == ("NOT_INTACT", None)
    assert CLIENT_CLAIM in got.reason and "fork" not in got.reason, got.reason
    assert got.untrusted is not None and "is not shown to extend the one of 1" in got.untrusted, got.untrusted
