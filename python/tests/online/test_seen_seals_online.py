"""A write the Python client waited for, sealed awaiting integration, then rolled back by the table
writer on the deployed stack (docs/verifiable-log.md, "Seals seen awaiting integration"): the head
item put back as it was before the write, the record and its marker deleted, before the integrator
ran. The table is then consistent with every kept checkpoint (the sealer signs no lineage
checkpoint; the index never held the write), so only the seal the client remembered refuses it,
as the TypeScript integration test (test/integration/seen-seals.test.ts) expects of that client."""

from __future__ import annotations

from pathlib import Path

import pytest
from table_writer import TableWriter
from test_freshness import note_request, until, write
from test_recall_absence_online import integrator_held, shown

import reseal
from reseal.item_layout import LineageKeys

ENV = {"DB_HOST": "db-1"}


def test_a_waited_write_rolled_back_before_its_integration_is_refused_where_a_cold_client_reads_it_absent(
    in_tmp: Path,
) -> None:
    store = reseal.FileCheckpointStore(in_tmp / "checkpoints.json")
    client = reseal.connect(writer_key=".reseal/s.pem", checkpoints=store)
    assert client.writer is not None
    lineage = reseal.lineage_id_for("seen-seals", client.writer.policy())
    write(client, lineage, "r-0")
    assert shown(until("the first write", lambda: client.recall(lineage, ENV))) == "TRIAGED VERIFIED_INTACT PROVEN"
    table = TableWriter(client)
    key = reseal.checkpoint_origin(client.stack.log_key.name, lineage)
    with integrator_held():
        before = table.head(lineage)
        # No signed tree proves it before the integration: the wait ends SEALED_AWAITING_INTEGRATION.
        outcome = client.wait_for_outcome(client.publish(note_request(lineage, "r-1")), timeout_s=20)
        assert outcome.kind == "SEALED" and outcome.record is not None, outcome.refusal
        assert outcome.freshness is not None and outcome.freshness.state == "SEALED_AWAITING_INTEGRATION"
        [seen] = store.load_seen_seals(key)
        assert (seen["residualId"], seen["seq"], seen["treeSize"]) == ("r-1", 1, 2)
        assert seen["recordHash"] == outcome.record["recordHash"]
        # The table writer: the head put back as it was, record 1 and r-1's marker deleted.
        table.roll_back(lineage, before, 1, 2)
        marker = {"pk": {"S": LineageKeys.lineage(lineage)}, "sk": {"S": LineageKeys.residual("r-1")}}
        table.dynamodb.delete_item(TableName=table.table, Key=marker)
        by_id = client.recall(lineage, ENV, target={"residualId": "r-1"})
        assert shown(by_id) == "NOT_INTACT UNVERIFIED_TAMPER_RISK NOT_NEWEST", by_id.reason
        assert by_id.reason.startswith(
            "rollback: residual r-1 reads absent, but this client saw residual r-1 sealed at seq 1"
        ), by_id.reason
        latest = client.recall(lineage, ENV)
        assert shown(latest) == "NOT_INTACT UNVERIFIED_TAMPER_RISK NOT_NEWEST", latest.reason
        assert latest.record is None and latest.delta is None
        assert latest.reason.startswith("rollback: the lineage's tree now holds 1 records, but this client saw"), (
            latest.reason
        )
        with pytest.raises(reseal.LogVerificationError, match="UNVERIFIED_TAMPER_RISK: rollback: the lineage's tree"):
            client.proven_records(lineage)
        # Without the memory the rewound table is consistent with everything kept: absent.
        cold = reseal.connect(writer_key=".reseal/s.pem", checkpoints=reseal.MemoryCheckpointStore())
        assert shown(cold.recall(lineage, ENV, target={"residualId": "r-1"})) == "NOT_FOUND - ABSENT"
