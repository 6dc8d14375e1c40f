"""A residual id sealed twice (docs/deployment-log.md, "Clients", item 3; docs/python.md): the
index keeps the first sealing (RESIDUAL_CHANGED), so a record proven without its residual id (a
latest recall, ``proven_records``) is checked against the index entry of that id, and a lineage
holding a second sealing is refused, never returned. Over the index and deployment log items of
test_deployment_chain_reader (lineage-a: 3 records indexed, r-0 mapped to seq 0, record hash cd…cd)."""

from __future__ import annotations

from typing import Any

import pytest
import test_deployment_chain_reader as fixtures
from test_write_outcome_freshness import ANSWERED, STACK

from reseal import LogVerificationError
from reseal.client import ResealClient


def client(freshness: bool = True) -> ResealClient:
    return ResealClient(
        STACK,
        dynamodb=fixtures.Table(fixtures.honest()),
        sqs=None,
        events=None,
        policy=fixtures.UNWITNESSED,
        freshness=freshness,
        now_ms=lambda: fixtures.NOW_MS,
        sleep=lambda _s: None,
    )


def record(seq: int, residual_id: str, record_hash: str) -> dict[str, Any]:
    header = {"lineageId": "lineage-a", "residualId": residual_id, "monotonicSequenceNumber": seq}
    return {"header": header, "recordHash": record_hash}


def test_a_latest_answer_whose_residual_id_the_index_maps_elsewhere_is_inconsistent() -> None:
    reseal = client()
    chain = reseal._chains.read("lineage-a") if reseal._chains is not None else None
    assert chain is not None and chain.kind == "PROVEN"
    second = record(2, "r-0", "ef" * 32)
    decided = reseal._record_freshness("lineage-a", chain, ANSWERED, second, {"latest": True})
    assert (decided.state, decided.verdict) == ("INCONSISTENT", "LINEAGE_BROKEN")
    assert "RESIDUAL_CHANGED" in decided.reason
    # The record the index maps is proven as before.
    first = record(0, "r-0", "cd" * 32)
    assert reseal._record_freshness("lineage-a", chain, ANSWERED, first, {"latest": True}).state == "PROVEN"


def test_proven_records_refuses_a_lineage_holding_a_residual_id_sealed_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    reseal = client(freshness=False)
    records = [record(0, "r-0", "cd" * 32), record(1, "r-1", "aa" * 32), record(2, "r-0", "ef" * 32)]
    monkeypatch.setattr(reseal, "_trusted", lambda _lineage: None)
    monkeypatch.setattr(reseal, "_latest", lambda _lineage, _trusted, _chain=None: ANSWERED)
    monkeypatch.setattr(reseal, "_included_record", lambda _lineage, seq, _latest: (records[seq], {}))
    monkeypatch.setattr(reseal, "_keep", lambda *_args: None)
    with pytest.raises(LogVerificationError, match="RESIDUAL_CHANGED") as raised:
        reseal.proven_records("lineage-a")
    assert raised.value.verdict == "SEQUENCE_REPLAYED" and "seq 0 and seq 2" in raised.value.reason
    records[2] = record(2, "r-2", "ef" * 32)
    assert len(reseal.proven_records("lineage-a")[0]) == 3
