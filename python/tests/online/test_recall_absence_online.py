"""A deleted residual-id marker on the deployed stack (docs/deployment-log.md, "Clients", item 3):
triage answers ``NOT_FOUND`` (it finds the record by its marker), and the Python client, with no
kept checkpoint, never takes that answer. Sealed past the indexed head (the integrator held), the
record is found among the records the index does not hold yet, proven in the lineage's signed
checkpoint: ``SEALED_AWAITING_INTEGRATION``, ``UNVERIFIED_TAMPER_RISK``. Once integrated, the
index maps the residual id: ``INCONSISTENT``, as the TypeScript integration test
(test/integration/fresh-client.test.ts, "a deleted residual-id marker") expects of this client."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import boto3
from table_writer import TableWriter
from test_freshness import until, write

import reseal
from reseal.item_layout import LineageKeys


@contextmanager
def integrator_held() -> Iterator[None]:
    """The integration queue's event source mapping disabled, so notices wait in the queue (what
    an integration interval not yet elapsed looks like), and enabled again after."""
    lambdas: Any = boto3.client("lambda", endpoint_url=os.environ["AWS_ENDPOINT_URL"])
    mappings = [
        m["UUID"]
        for m in lambdas.list_event_source_mappings()["EventSourceMappings"]
        if "integration" in m.get("EventSourceArn", "").lower()
    ]
    assert len(mappings) == 1, lambdas.list_event_source_mappings()["EventSourceMappings"]
    lambdas.update_event_source_mapping(UUID=mappings[0], Enabled=False)
    try:
        yield
    finally:
        lambdas.update_event_source_mapping(UUID=mappings[0], Enabled=True)


def shown(recall: reseal.RecallResult) -> str:
    """``<end> <verdict or -> <freshness state>``, as the TypeScript test's Python reader prints it."""
    return f"{recall.end} {recall.verdict or '-'} {recall.freshness.state if recall.freshness else 'no freshness'}"


def test_a_deleted_marker_is_never_answered_not_found_before_or_after_its_integration(in_tmp: Path) -> None:
    client = reseal.connect(writer_key=".reseal/a.pem", checkpoints=None)
    assert client.writer is not None
    lineage = reseal.lineage_id_for("absence", client.writer.policy())
    env = {"DB_HOST": "db-1"}
    first = write(client, lineage, "r-1")
    assert first.record is not None
    integrated = until("the first write", lambda: client.recall(lineage, env))
    assert shown(integrated) == "TRIAGED VERIFIED_INTACT PROVEN", integrated.reason
    table = TableWriter(client)
    marker = {"pk": {"S": LineageKeys.lineage(lineage)}, "sk": {"S": LineageKeys.residual("r-2")}}
    with integrator_held():
        write(client, lineage, "r-2", {"seq": 0, "recordHash": first.record["recordHash"]})
        table.dynamodb.delete_item(TableName=table.table, Key=marker)
        past = client.recall(lineage, env, target={"residualId": "r-2"})
        assert shown(past) == "NOT_INTACT UNVERIFIED_TAMPER_RISK SEALED_AWAITING_INTEGRATION", past.reason
        assert past.record is None and past.delta is None
        # The sealer signs no lineage checkpoint (docs/deployment-log.md, "What changes for the
        # sealer", step 3): r-2 is proven in the tree its MAC'd head item claims, the table's word.
        assert past.reason.startswith(
            "residual r-2 is sealed at seq 1, proven in the tree the head item claims (2 records, not signed: the table's word)"
        ), past.reason
        assert past.report["refusalCode"] == "NOT_FOUND"  # what triage answered, and the client refuted
    # The integrator runs again: the index now maps r-2, whose marker is still gone.
    deadline = time.monotonic() + 180
    while True:
        after = client.recall(lineage, env, target={"residualId": "r-2"})
        if after.freshness is None or after.freshness.state != "SEALED_AWAITING_INTEGRATION":
            break
        assert time.monotonic() < deadline, f"r-2 still not integrated: {after.reason}"
        time.sleep(1)
    assert shown(after) == "NOT_INTACT UNVERIFIED_TAMPER_RISK INCONSISTENT", after.reason
    never = client.recall(lineage, env, target={"residualId": "r-never-written"})
    assert shown(never) == "NOT_FOUND - ABSENT", never.reason
