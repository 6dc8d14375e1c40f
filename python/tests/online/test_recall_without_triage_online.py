"""A recall without triage against the deployed stack on the emulator (docs/verifiable-log.md,
"Recall", "Without triage"): nothing is put on the bus, the recall decides as the recall through
triage does over the same record and environment, and a record the table writer edits is refused
as a tamper finding, worded as the client's own reading of the table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from table_writer import TableWriter
from test_online import sealed_write

import reseal

CLIENT_CLAIM = "[this client's reading of the table, not proven]"


class NoBus:
    """The EventBridge client of a recall that must put nothing."""

    def put_events(self, **_: Any) -> dict[str, Any]:
        raise AssertionError("a recall without triage put an event")


def decided(recall: reseal.RecallResult) -> tuple[Any, ...]:
    fresh = recall.freshness
    return recall.end, recall.verdict, recall.delta, recall.record, None if fresh is None else fresh.state


def test_a_recall_without_triage_decides_as_triage_s_and_refuses_an_edited_record(in_tmp: Path) -> None:
    client = reseal.connect(writer_key=".reseal/direct.pem")
    lineage, outcome = sealed_write(client, "direct")
    env = {"DB_HOST": "db-2"}
    through = client.recall(lineage, env, timeout_s=120)
    assert through.end == "TRIAGED", through.reason
    bus, client._events = client._events, NoBus()
    direct = client.recall(lineage, env, triage=False)
    assert decided(direct) == decided(through), (direct.reason, through.reason)
    assert direct.freshness is not None and direct.freshness.state == "PROVEN"
    assert direct.record is not None and outcome.record is not None
    assert direct.record["recordHash"] == outcome.record["recordHash"]
    assert direct.request_id.startswith("direct-") and direct.report["outcome"] == "TRIAGED"

    TableWriter(client).edit_record(lineage, 0, "db is postgres 16", "db is postgres 17")
    refused = client.recall(lineage, env, triage=False)
    # The verdict the client's own answer claims, passed on hedged (as the TypeScript client does).
    assert (refused.end, refused.verdict, refused.record, refused.delta) == (
        "NOT_INTACT",
        reseal.VerificationVerdict.HASH_MISMATCH,
        None,
        None,
    )
    assert CLIENT_CLAIM in refused.reason and "triage" not in refused.reason, refused.reason
    # Through triage, the same table is refused with the same verdict, as triage's finding.
    client._events = bus
    triaged = client.recall(lineage, env, timeout_s=120)
    assert (triaged.end, triaged.verdict) == (refused.end, refused.verdict), triaged.reason
    assert "[triage's finding, not proven to this client]" in triaged.reason
