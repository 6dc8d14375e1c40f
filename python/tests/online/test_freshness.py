"""Freshness from the deployment log on the deployed stack (docs/deployment-log.md, "Clients"):
a cold client (no kept checkpoint) under the stack's default policy sees an integrated record
PROVEN, a residual id never written ABSENT (proven by the index), an older signed answer
replayed as the latest NOT_NEWEST: refused, never returned as memory; and a write awaited until
proven carries PROVEN."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from table_writer import TableWriter

import reseal
from reseal.item_layout import LineageKeys


def note_request(lineage: str, residual: str, supersedes: Any = None) -> dict[str, Any]:
    """The online tests' write: ``{"note": residual}`` in session s-1, under ``{"DB_HOST": "db-1"}``
    (one claim on it), its boundary a second ago; unsigned (``publish`` signs it)."""
    return reseal.write_request(
        residual_id=residual,
        lineage_id=lineage,
        session_id="s-1",
        generation_epoch=1,
        payload={"note": residual},
        boundary_at_ms=int(time.time() * 1000) - 1000,
        manifest={"env": {"DB_HOST": "db-1"}, "structuralKeys": [], "claimDependencyMap": {"db": ["DB_HOST"]}},
        supersedes=supersedes,
    )


def write(client: reseal.ResealClient, lineage: str, residual: str, supersedes: Any = None) -> reseal.WriteOutcome:
    """Publishes :func:`note_request` and waits for it to be sealed (up to 120 s)."""
    outcome = client.wait_for_outcome(client.publish(note_request(lineage, residual, supersedes)), timeout_s=120)
    assert outcome.kind == "SEALED", outcome.refusal
    return outcome


def until(what: str, check: Callable[[], reseal.RecallResult], timeout_s: float = 120) -> reseal.RecallResult:
    """Recalls until ``check``'s recall is integrated (the integrator runs once per interval)."""
    deadline = time.monotonic() + timeout_s
    while True:
        recall = check()
        if recall.freshness is not None and recall.freshness.state != "SEALED_AWAITING_INTEGRATION":
            return recall
        assert time.monotonic() < deadline, f"{what}: still {recall.freshness} after {timeout_s} s"
        time.sleep(1)


def test_an_integrated_record_is_proven_and_a_residual_id_never_written_is_absent(in_tmp: Path) -> None:
    client = reseal.connect(writer_key=".reseal/f.pem", checkpoints=None)
    assert client.writer is not None
    lineage = reseal.lineage_id_for("fresh", client.writer.policy())
    write(client, lineage, "r-1")
    recall = until("the first write", lambda: client.recall(lineage, {"DB_HOST": "db-1"}))
    assert recall.end == "TRIAGED" and recall.record is not None, recall.reason
    assert recall.freshness is not None and recall.freshness.state == "PROVEN", recall.freshness
    assert recall.freshness.witnessing == "UNWITNESSED" and recall.freshness.window_seconds is None
    assert type(recall.freshness.checkpoint_size) is int and recall.freshness.checkpoint_size >= 1
    absent = client.recall(lineage, {"DB_HOST": "db-1"}, target={"residualId": "r-never"})
    assert absent.end == "NOT_FOUND" and absent.freshness is not None, absent.reason
    assert absent.freshness.state == "ABSENT" and absent.freshness.checkpoint_size is not None
    records, _ = client.proven_records(lineage)
    assert [r["header"]["residualId"] for r in records] == ["r-1"]


def test_an_older_signed_answer_replayed_as_the_latest_is_not_newest(in_tmp: Path) -> None:
    """The table writer rolls the lineage back to its signed state of one record after the index
    took two: every lineage check passes (the head item is genuine), only the index shows it."""
    client = reseal.connect(writer_key=".reseal/n.pem", checkpoints=None)
    assert client.writer is not None
    lineage = reseal.lineage_id_for("not-newest", client.writer.policy())
    first = write(client, lineage, "r-1")
    table = TableWriter(client)
    head_at_one = table.head(lineage)
    assert first.record is not None
    write(client, lineage, "r-2", {"seq": 0, "recordHash": first.record["recordHash"]})
    recall = until("the second write", lambda: client.recall(lineage, {"DB_HOST": "db-1"}))
    assert recall.freshness is not None and recall.freshness.state == "PROVEN", recall.freshness
    assert recall.record is not None and recall.record["header"]["monotonicSequenceNumber"] == 1
    table.roll_back(lineage, head_at_one, 1, 2)
    table.dynamodb.delete_item(
        TableName=table.table,
        Key={"pk": {"S": LineageKeys.lineage(lineage)}, "sk": {"S": LineageKeys.residual("r-2")}},
    )
    replayed = client.recall(lineage, {"DB_HOST": "db-1"})
    assert replayed.end == "NOT_INTACT" and replayed.record is None and replayed.delta is None, replayed.reason
    assert replayed.verdict == reseal.VerificationVerdict.UNVERIFIED_TAMPER_RISK
    assert replayed.freshness is not None and replayed.freshness.state == "NOT_NEWEST", replayed.freshness
    with pytest.raises(reseal.LogVerificationError) as raised:
        client.proven_records(lineage)  # what the framework adapters read as memory
    assert raised.value.verdict == reseal.VerificationVerdict.UNVERIFIED_TAMPER_RISK
    assert "NOT_NEWEST" in raised.value.reason
    # Without the deployment log the same client has no tree head for a head the sealer MAC'd (no
    # signed lineage checkpoint, docs/deployment-log.md, "What changes for the sealer", step 3): refused.
    blind = reseal.ResealClient(
        client.stack, dynamodb=table.dynamodb, sqs=None, events=None, checkpoints=None, freshness=False
    )
    with pytest.raises(reseal.LogVerificationError) as blinded:
        blind.proven_records(lineage)
    assert "reads no deployment log" in blinded.value.reason


def test_a_write_awaited_until_proven_is_proven_through_the_deployment_log(in_tmp: Path) -> None:
    # docs/python.md, "The online loop": a real seal's freshness, as the TypeScript `publish --wait`.
    # Whether the wait went on past SEALED_AWAITING_INTEGRATION depends on the integrator's timing;
    # test_write_outcome_freshness.py shows that offline.
    client = reseal.connect(writer_key=".reseal/w.pem", checkpoints=None)
    assert client.writer is not None
    lineage = reseal.lineage_id_for("fresh-write", client.writer.policy())
    outcome = client.wait_for_outcome(client.publish(note_request(lineage, "r-1")), timeout_s=240, until_proven=True)
    assert outcome.kind == "SEALED" and outcome.freshness is not None, outcome.refusal
    assert outcome.freshness.state == "PROVEN", outcome.freshness
    assert type(outcome.freshness.checkpoint_size) is int and outcome.freshness.checkpoint_size >= 1
