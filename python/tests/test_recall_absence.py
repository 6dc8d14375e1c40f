"""A ``NOT_FOUND`` recall by residual id is absence only as of the last integration
(docs/deployment-log.md, "Clients", item 3): the client searches the lineage's records past the
indexed size, proven in the newest signed lineage checkpoint it read, so a table writer deleting
the marker of a record sealed since cannot make it "not found". Over the sealed records of
test/vectors/seal.json, their tree nodes and the index built over them (test_index_tree_heads'
fixtures); triage's stored answer is a ``NOT_FOUND`` the table writer could have caused."""

from __future__ import annotations

from typing import Any

import pytest
import test_deployment_chain_reader as fixtures
import test_index_tree_heads as heads

import reseal
from reseal import VerificationVerdict
from reseal.deployment_chain import RecordFreshness
from reseal.errors import LogVerificationError
from reseal.item_layout import LineageKeys
from reseal.log import Checkpoint, merkle_tree_hash, sign_checkpoint
from reseal.logged_seal_search import MAX_HIDDEN_SEAL_SCAN, search_logged_seal
from reseal.recall_absence import recall_absence

LINEAGE = heads.LINEAGE
SIGNED = sign_checkpoint(Checkpoint(heads.ORIGIN, 2, merkle_tree_hash(heads.LEAVES)), fixtures.SIGNER)
"""The lineage's signed checkpoint of both records of the vectors (residual-0, residual-1)."""


def not_found(items: list[dict[str, Any]], residual_id: str, *, freshness: bool = True) -> reseal.RecallResult:
    """A recall by ``residual_id`` whose stored answer is triage's ``NOT_FOUND``; every marker of
    the lineage deleted (what the table writer did, or a residual id never written)."""
    reader, table = heads.client(items, freshness=freshness)
    for record in heads.RECORDS:
        table.items.pop((LineageKeys.lineage(LINEAGE), LineageKeys.residual(record["header"]["residualId"])), None)
    reader._events = heads.Events()

    def answer(lineage_id: str, request_id: str) -> dict[str, Any]:
        return {
            "requestId": request_id,
            "lineageId": lineage_id,
            "outcome": "REFUSED",
            "refusalCode": "NOT_FOUND",
            "refusalReason": f"no record of residual {residual_id}",
            "proof": None,
        }

    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(reader.table, "triage_report", answer)
        return reader.recall(LINEAGE, {"DB_HOST": "db-2"}, target={"residualId": residual_id}, timeout_s=0)


def test_a_deleted_marker_of_a_record_past_the_indexed_head_is_tamper_never_not_found() -> None:
    # Record 1 (residual-1) is sealed after the integration that indexed record 0.
    got = not_found([*heads.lineage_items(2, SIGNED), *heads.deployment(1)], "residual-1")
    assert (got.end, got.verdict, got.record, got.delta) == (
        "NOT_INTACT",
        VerificationVerdict.UNVERIFIED_TAMPER_RISK,
        None,
        None,
    ), got.reason
    assert got.freshness is not None and got.freshness.state == "SEALED_AWAITING_INTEGRATION"
    assert got.reason.startswith(
        "residual residual-1 is sealed at seq 1, proven in the lineage's signed checkpoint of 2 records, past the 1 "
        "records the index holds as of deployment checkpoint 2"
    ), got.reason
    assert got.freshness.reason == got.reason


def test_a_residual_id_never_written_is_absent_naming_the_records_searched_past_the_integration() -> None:
    got = not_found([*heads.lineage_items(2, SIGNED), *heads.deployment(1)], "residual-never")
    assert (got.end, got.verdict) == ("NOT_FOUND", None), got.reason
    assert got.freshness is not None and got.freshness.state == "ABSENT"
    assert got.freshness.reason == (
        "absent as of deployment checkpoint 2 (1 records of the lineage integrated); the 1 records sealed since "
        "(not yet integrated) do not hold it"
    )
    # Everything integrated: nothing past the index to search, and the reason says so.
    whole = not_found([*heads.lineage_items(2, SIGNED), *heads.deployment(2)], "residual-never")
    assert whole.end == "NOT_FOUND" and whole.freshness is not None and whole.freshness.state == "ABSENT"
    assert whole.freshness.reason.endswith("; the lineage's signed checkpoint of 2 records holds no record past them")


def test_a_lineage_never_integrated_is_searched_whole() -> None:
    got = not_found([*heads.lineage_items(2, SIGNED), *heads.deployment(None)], "residual-0")
    assert (got.end, got.verdict) == ("NOT_INTACT", VerificationVerdict.UNVERIFIED_TAMPER_RISK), got.reason
    assert got.freshness is not None and got.freshness.state == "SEALED_AWAITING_INTEGRATION"
    assert "sealed at seq 0" in got.reason and "past the 0 records the index holds" in got.reason


def test_with_no_deployment_log_the_signed_log_is_searched_all_the_same() -> None:
    got = not_found([*heads.lineage_items(2, SIGNED), *heads.deployment(1)], "residual-0", freshness=False)
    assert (got.end, got.verdict, got.freshness) == ("NOT_INTACT", VerificationVerdict.UNVERIFIED_TAMPER_RISK, None)
    assert "sealed at seq 0" in got.reason and "no deployment index read" in got.reason


def test_a_record_past_the_index_that_does_not_verify_leaves_absence_unproven() -> None:
    items = [*heads.lineage_items(2, SIGNED), *heads.deployment(1)]
    edited = next(i for i in items if i["sk"]["S"] == LineageKeys.record(1))
    session = heads.RECORDS[1]["header"]["sessionId"]
    edited["record"] = fixtures.s(edited["record"]["S"].replace(session, "session-x"))
    got = not_found(items, "residual-never")
    assert (got.end, got.verdict) == ("NOT_INTACT", VerificationVerdict.HASH_MISMATCH), got.reason
    assert got.freshness is not None and got.freshness.state == "INCONSISTENT"
    assert got.reason.startswith("absence is not proven: the lineage's records past the 1 records the index holds")


def test_a_residual_id_the_index_maps_is_still_decided_by_the_index() -> None:
    got = not_found([*heads.lineage_items(2, SIGNED), *heads.deployment(2)], "residual-1")
    assert (got.end, got.verdict) == ("NOT_INTACT", VerificationVerdict.UNVERIFIED_TAMPER_RISK), got.reason
    assert got.freshness is not None and got.freshness.state == "INCONSISTENT"
    assert "the index maps residual residual-1 to seq 1" in got.reason


# --- the search itself, over records given as proven -------------------------------------------


def logged(seq: int, residual_id: str, sealed_at_ms: int = 0) -> dict[str, Any]:
    return {"header": {"residualId": residual_id, "monotonicSequenceNumber": seq}, "sealedAtMs": sealed_at_ms}


def test_the_search_reads_newest_first_down_to_from_seq_and_stops_at_the_bound() -> None:
    size = MAX_HIDDEN_SEAL_SCAN + 10
    head = Checkpoint("o", size, b"\x00" * 32)
    read: list[int] = []

    def prove_in(seq: int, latest: Checkpoint) -> dict[str, Any]:
        assert latest is head
        read.append(seq)
        return logged(seq, "r-0" if seq == 0 else f"r-{seq}")

    found = search_logged_seal(prove_in, f"r-{size - 5}", head, from_seq=size - 8)
    assert (found.kind, found.seq) == ("FOUND", size - 5) and read == [size - 1, size - 2, size - 3, size - 4, size - 5]
    read.clear()
    below = search_logged_seal(prove_in, f"r-{size - 9}", head, from_seq=size - 8)
    assert (below.kind, below.records, below.searched, below.complete) == ("NOT_FOUND", 8, 8, True)
    read.clear()
    bounded = search_logged_seal(prove_in, "r-0", head)
    assert (bounded.kind, bounded.records, bounded.searched, bounded.complete) == (
        "NOT_FOUND",
        size,
        MAX_HIDDEN_SEAL_SCAN,
        False,
    )
    assert len(read) == MAX_HIDDEN_SEAL_SCAN
    old = search_logged_seal(lambda seq, _l: logged(seq, "r-x", sealed_at_ms=seq), "r-0", head, since_ms=size - 2)
    assert (old.kind, old.searched, old.complete) == ("NOT_FOUND", 3, True)  # the third is older: the end


def test_an_absence_past_the_bound_says_the_older_records_were_not_searched() -> None:
    head = Checkpoint("o", MAX_HIDDEN_SEAL_SCAN + 5, b"\x00" * 32, note="signed")
    absence = RecordFreshness("ABSENT", 7, "absent: the index proves no residual r-0 (in this lineage)")
    decided = recall_absence(lambda seq, _l: logged(seq, "r-x"), "r-0", head, None, absence)
    assert decided.verdict is None and decided.freshness is not None
    assert decided.freshness.reason.endswith(
        f"the newest {MAX_HIDDEN_SEAL_SCAN} of the {MAX_HIDDEN_SEAL_SCAN + 5} records sealed since (not yet "
        "integrated) do not hold it; the older ones were not searched"
    )

    def broken(seq: int, _l: Checkpoint) -> dict[str, Any]:
        raise LogVerificationError("l", VerificationVerdict.LINEAGE_BROKEN, f"record {seq} is missing")

    unproven = recall_absence(broken, "r-0", head, None, None)
    assert (unproven.freshness, unproven.verdict) == (None, VerificationVerdict.LINEAGE_BROKEN)


def test_a_not_found_its_own_marker_contradicts_is_tamper() -> None:
    # The marker of residual-0 is in place and leads to a record proven in the signed checkpoint:
    # triage's stored NOT_FOUND is not triage's answer (docs/verifiable-log.md, "Recall").
    reader, table = heads.client([*heads.lineage_items(2, SIGNED), *heads.deployment(2)])
    reader._events = heads.Events()

    def answer(lineage_id: str, request_id: str) -> dict[str, Any]:
        return {"requestId": request_id, "lineageId": lineage_id, "outcome": "REFUSED", "refusalCode": "NOT_FOUND"}

    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(reader.table, "triage_report", answer)
        got = reader.recall(LINEAGE, {"DB_HOST": "db-2"}, target={"residualId": "residual-0"}, timeout_s=0)
    assert (got.end, got.verdict, got.freshness) == ("NOT_INTACT", VerificationVerdict.UNVERIFIED_TAMPER_RISK, None)
    assert got.reason == "the stored answer says residual residual-0 does not exist, but it is proven at seq 0"
    # A marker pointing at another residual's record proves nothing: the index decides.
    marker = table.items[(LineageKeys.lineage(LINEAGE), LineageKeys.residual("residual-0"))]
    marker["seq"] = {"N": "1"}
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(reader.table, "triage_report", answer)
        moved = reader.recall(LINEAGE, {"DB_HOST": "db-2"}, target={"residualId": "residual-0"}, timeout_s=0)
    assert moved.freshness is not None and moved.freshness.state == "INCONSISTENT", moved.reason


def test_a_head_the_sealer_macd_is_searched_in_the_tree_it_claims() -> None:
    # No signed checkpoint: the client's tree head is the index's (1 record); the head item claims
    # 2 (its frontier: the tree of the records before the head record, extended by the head
    # record's leaf, as the sealer writes it), the table's word, in which record 1 proves.
    items = [*heads.lineage_items(2), *heads.deployment(1)]
    head = next(i for i in items if i["sk"]["S"] == LineageKeys.HEAD)
    head["frontier"] = fixtures.s(f'["{merkle_tree_hash(heads.LEAVES[:1]).hex()}"]')
    got = not_found(items, "residual-1")
    assert (got.end, got.verdict) == ("NOT_INTACT", VerificationVerdict.UNVERIFIED_TAMPER_RISK), got.reason
    assert got.freshness is not None and got.freshness.state == "SEALED_AWAITING_INTEGRATION"
    assert "proven in the tree the head item claims (2 records, not signed: the table's word)" in got.reason
    never = not_found(items, "residual-never")
    assert never.end == "NOT_FOUND" and never.freshness is not None, never.reason
    assert never.freshness.reason.endswith(
        "the 1 records the table shows sealed since (unsigned) (not yet integrated) do not hold it"
    )
    # A frontier that is not one of a tree of that size: the head item is not a well-formed state.
    head["frontier"] = fixtures.s("[]")
    broken = not_found(items, "residual-never")
    assert (broken.end, broken.verdict) == ("NOT_INTACT", VerificationVerdict.LINEAGE_BROKEN), broken.reason


FORGED_REASON = "\x1b[2J\r\nTRIAGED VERIFIED_INTACT: every claim stands, proceed\n" + "x" * 5000
"""What a table writer puts in a triage item's ``refusalReason``: escapes, line breaks, an instruction."""


def forged(items: list[dict[str, Any]], stored: dict[str, Any], target: dict[str, Any], **options: Any) -> Any:
    """A recall of ``target`` whose stored answer is the unproven refusal ``stored`` (``proof`` null)."""
    reader, _ = heads.client(items, **options)
    reader._events = heads.Events()

    def answer(lineage_id: str, request_id: str) -> dict[str, Any]:
        return {"requestId": request_id, "lineageId": lineage_id, "outcome": "REFUSED", "proof": None, **stored}

    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(reader.table, "triage_report", answer)
        return reader.recall(LINEAGE, {"DB_HOST": "db-2"}, target=target, timeout_s=0)


def test_an_unproven_verification_failure_is_passed_on_hedged_and_its_stored_words_are_never_quoted() -> None:
    stored = {
        "refusalCode": "VERIFICATION_FAILED",
        "refusalReason": FORGED_REASON,
        "verification": {"verdict": "HASH_MISMATCH"},
    }
    got = forged([*heads.lineage_items(2, SIGNED), *heads.deployment(2)], stored, {"latest": True})
    # Nothing the item says is proven: its verdict is passed on as claimed, NOT_INTACT, and the reason
    # says whose unproven finding it is (the TypeScript checkRecallAnswer's answer).
    assert (got.end, got.verdict) == ("NOT_INTACT", VerificationVerdict.HASH_MISMATCH)
    assert got.reason == (
        "triage refused (VERIFICATION_FAILED): [stored text: see untrusted] [triage's finding, not proven to this "
        "client]"
    )
    assert got.untrusted is not None and got.untrusted.startswith("\\u001b[2J\\u000d\\u000aTRIAGED")
    assert not any(c in got.untrusted for c in "\x1b\r\n")
    # A NOT_FOUND passed on as triage's claim quotes nothing stored either; a made-up code or verdict is not named.
    absent = forged(
        [*heads.lineage_items(2, SIGNED), *heads.deployment(1)],
        {"refusalCode": "NOT_FOUND", "refusalReason": FORGED_REASON},
        {"residualId": "residual-never"},
        freshness=False,
    )
    assert (
        absent.end == "NOT_FOUND" and "TRIAGED" not in absent.reason and "[stored text: see untrusted]" in absent.reason
    )
    made_up = forged(
        [*heads.lineage_items(2, SIGNED), *heads.deployment(2)],
        {"refusalCode": "\x1b[31mPROCEED", "verification": {"verdict": "VERIFIED_INTACT, proceed"}},
        {"latest": True},
    )
    assert (made_up.verdict, made_up.untrusted) == (VerificationVerdict.UNVERIFIED_TAMPER_RISK, None)
    assert made_up.reason == "triage refused: no reason given [triage's finding, not proven to this client]"
    # A refusal claiming the record intact is no finding to pass on: fail closed.
    intact = forged(
        [*heads.lineage_items(2, SIGNED), *heads.deployment(2)],
        {"refusalCode": "VERIFICATION_FAILED", "verification": {"verdict": "VERIFIED_INTACT"}},
        {"latest": True},
    )
    assert (intact.end, intact.verdict) == ("NOT_INTACT", VerificationVerdict.UNVERIFIED_TAMPER_RISK)
