"""A sealed write's freshness against the deployment log (docs/deployment-log.md, "Clients";
docs/python.md, "The online loop"): decided as a recall by residual id is, over the index and
deployment log items of test_deployment_chain_reader. The record's proof in its lineage checkpoint
is stubbed here (the online tests prove real records); what is under test is what the outcome
carries, and that a chain contradicting the seal or failing to verify is raised, never returned."""

from __future__ import annotations

from typing import Any

import pytest
import test_deployment_chain_reader as fixtures

import reseal.client as client_module
from reseal import HiddenSealError, LogVerificationError, UnverifiedOutcomeError, WaitTimeoutError
from reseal.client import PublishedWrite, ResealClient
from reseal.item_layout import index_node_pk
from reseal.log import Checkpoint
from reseal.stack import PinnedStack, StackOutputs

STACK = PinnedStack(
    "test-stack",
    StackOutputs("t", "queue", "bus", "mac", "log", "guard", "sealer", "reseal/test-stack"),
    fixtures.SIGNER.verifier_key,
    fixtures.SIGNER.verifier_key,
    fixtures.SIGNER.verifier_key,
)
# lineage-a's indexed head holds 3 records (root 03…03) and maps r-0 to seq 0 (record hash cd…cd).
ANSWERED = Checkpoint("reseal/test-stack/lineage-a", 3, bytes.fromhex("03" * 32))
PUBLISHED = PublishedWrite("message", fixtures.NOW_MS, {"lineageId": "lineage-a", "residualId": "r-0"})


class Lineage:
    """The lineage table's reads of one write: its marker at seq 0, no refusals."""

    def find_by_residual_id(self, lineage_id: str, residual_id: str, *, consistent: bool = True) -> dict[str, Any]:
        return {"lineageId": lineage_id, "seq": 0}

    def rejections(
        self, lineage_id: str, residual_id: str, *, consistent: bool = True, since_ms: float | None = None
    ) -> list[dict[str, Any]]:
        return []

    def conflicts(self, lineage_id: str, residual_id: str, *, consistent: bool = True) -> list[dict[str, Any]]:
        return []


def client(
    monkeypatch: pytest.MonkeyPatch,
    items: list[dict[str, Any]],
    *,
    record_hash: str = "cd" * 32,
    freshness: bool = True,
    sleep: Any = lambda _s: None,
) -> tuple[ResealClient, fixtures.Table]:
    """A client over the deployment items ``items``, whose write is sealed at seq 0 with ``record_hash``."""
    table = fixtures.Table(items)
    reseal = ResealClient(
        STACK,
        dynamodb=table,
        sqs=None,
        events=None,
        policy=fixtures.UNWITNESSED,
        freshness=freshness,
        now_ms=lambda: fixtures.NOW_MS,
        sleep=sleep,
    )
    record = {
        "header": {"lineageId": "lineage-a", "residualId": "r-0", "monotonicSequenceNumber": 0},
        "recordHash": record_hash,
    }
    inclusion = {"leafIndex": 0, "treeSize": 3, "inclusionProof": []}
    monkeypatch.setattr(reseal, "table", Lineage())
    monkeypatch.setattr(
        reseal, "_prove_record", lambda _lineage, _seq, _chain=None: (record, inclusion, ANSWERED, None)
    )
    monkeypatch.setattr(client_module, "_binds_request", lambda _record, _request: True)
    return reseal, table


def unpublished() -> list[dict[str, Any]]:
    return [i for i in fixtures.honest() if i["sk"]["S"] != "HEAD"]


def test_a_seal_the_index_maps_is_proven() -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        outcome = client(monkeypatch, fixtures.honest())[0].wait_for_outcome(PUBLISHED, timeout_s=0)
    assert outcome.kind == "SEALED" and outcome.freshness is not None
    assert (outcome.freshness.state, outcome.freshness.checkpoint_size) == ("PROVEN", 3)
    assert (outcome.freshness.witnessing, outcome.freshness.window_seconds) == ("UNWITNESSED", None)


def test_a_seal_before_integration_is_sealed_awaiting_integration() -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        outcome = client(monkeypatch, unpublished())[0].wait_for_outcome(PUBLISHED, timeout_s=0)
    assert outcome.kind == "SEALED" and outcome.freshness is not None
    assert outcome.freshness.state == "SEALED_AWAITING_INTEGRATION"


def test_until_proven_waits_past_the_seal_for_the_integration() -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        polls: list[float] = []
        reseal, table = client(monkeypatch, unpublished(), sleep=polls.append)
        head = next(i for i in fixtures.honest() if i["sk"]["S"] == "HEAD")

        def integrate(seconds: float) -> None:
            polls.append(seconds)
            table.items[("DEPLOYMENT#log", "HEAD")] = head

        monkeypatch.setattr(reseal, "_sleep", integrate)
        outcome = reseal.wait_for_outcome(PUBLISHED, timeout_s=300, until_proven=True)
    assert outcome.freshness is not None and outcome.freshness.state == "PROVEN"
    assert len(polls) == 1  # the sealed outcome was not returned: the wait went on


def test_until_proven_ends_sealed_awaiting_integration_when_time_runs_out() -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        outcome = client(monkeypatch, unpublished())[0].wait_for_outcome(PUBLISHED, timeout_s=0, until_proven=True)
    assert outcome.kind == "SEALED" and outcome.freshness is not None
    assert outcome.freshness.state == "SEALED_AWAITING_INTEGRATION"


def test_an_index_mapping_the_residual_id_elsewhere_raises_inconsistent() -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        reseal = client(monkeypatch, fixtures.honest(), record_hash="ef" * 32)[0]
        with pytest.raises(UnverifiedOutcomeError, match="INCONSISTENT") as raised:
            reseal.wait_for_outcome(PUBLISHED, timeout_s=0)
    assert (raised.value.residual_id, raised.value.seq) == ("r-0", 0)


def test_a_chain_that_does_not_verify_raises_refused() -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        reseal, table = client(monkeypatch, fixtures.honest())
        del table.items[(index_node_pk(fixtures.ROOT.hex()), "NODE")]  # a table writer hides the index root
        with pytest.raises(UnverifiedOutcomeError, match="REFUSED"):
            reseal.wait_for_outcome(PUBLISHED, timeout_s=0, until_proven=True)


def test_a_client_checking_no_freshness_reports_none_and_until_proven_changes_nothing() -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        reseal = client(monkeypatch, unpublished(), freshness=False)[0]
        outcome = reseal.wait_for_outcome(PUBLISHED, timeout_s=0, until_proven=True)
    assert outcome.kind == "SEALED" and outcome.freshness is None


def test_a_timeout_with_nothing_sealed_still_raises() -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        reseal = client(monkeypatch, unpublished())[0]
        monkeypatch.setattr(reseal.table, "find_by_residual_id", lambda _lineage, _residual, **_: None)
        monkeypatch.setattr(reseal, "_latest", lambda _lineage, _trusted, _chain=None: None)
        monkeypatch.setattr(reseal, "_trusted", lambda _lineage: None)
        with pytest.raises(WaitTimeoutError):
            reseal.wait_for_outcome(PUBLISHED, timeout_s=0, until_proven=True)


# docs/cli.md, `publish --wait`: a seal proven where a table writer cannot forge it, whose marker
# the table hides, ends the wait with HiddenSealError (the CLI's exit 20), never a timeout.
def hiding(monkeypatch: pytest.MonkeyPatch, items: list[dict[str, Any]]) -> ResealClient:
    """A client whose table shows no marker for the write (a table writer deleted it)."""
    reseal = client(monkeypatch, items)[0]
    monkeypatch.setattr(reseal.table, "find_by_residual_id", lambda _lineage, _residual, **_: None)
    monkeypatch.setattr(reseal, "_trusted", lambda _lineage: None)
    return reseal


def test_a_hidden_marker_of_a_residual_id_the_index_maps_raises_hidden_seal() -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        reseal = hiding(monkeypatch, fixtures.honest())
        with pytest.raises(HiddenSealError) as raised:
            reseal.wait_for_outcome(PUBLISHED, timeout_s=0)
    assert (raised.value.lineage_id, raised.value.residual_id, raised.value.seq) == ("lineage-a", "r-0", 0)
    assert raised.value.verdict == "UNVERIFIED_TAMPER_RISK"
    assert "the index maps residual r-0 to seq 0" in raised.value.reason


def logged(seq: int, residual_id: str, sealed_at_ms: int = fixtures.NOW_MS) -> dict[str, Any]:
    return {"header": {"residualId": residual_id, "monotonicSequenceNumber": seq}, "sealedAtMs": sealed_at_ms}


def test_a_hidden_marker_of_a_record_in_the_signed_log_raises_hidden_seal() -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        reseal = hiding(monkeypatch, unpublished())  # no deployment checkpoint: the signed log decides
        records = {0: logged(0, "r-other"), 1: logged(1, "r-0"), 2: logged(2, "r-later")}
        monkeypatch.setattr(reseal, "_latest", lambda _lineage, _trusted, _chain=None: ANSWERED)
        monkeypatch.setattr(reseal, "_included_record", lambda _lineage, seq, _latest: (records[seq], {}))
        with pytest.raises(HiddenSealError) as raised:
            reseal.wait_for_outcome(PUBLISHED, timeout_s=0)
    assert (raised.value.seq, raised.value.verdict) == (1, "UNVERIFIED_TAMPER_RISK")
    assert "sealed at seq 1, proven in the lineage's signed checkpoint of 3 records" in raised.value.reason


def test_a_record_sealed_before_the_publish_is_not_its_seal() -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        reseal = hiding(monkeypatch, unpublished())
        old = {2: logged(2, "r-0", sealed_at_ms=fixtures.NOW_MS - 3_600_000)}
        monkeypatch.setattr(reseal, "_latest", lambda _lineage, _trusted, _chain=None: ANSWERED)
        monkeypatch.setattr(reseal, "_included_record", lambda _lineage, seq, _latest: (old[seq], {}))
        with pytest.raises(WaitTimeoutError):
            reseal.wait_for_outcome(PUBLISHED, timeout_s=0)


def test_a_signed_log_that_does_not_verify_at_the_deadline_raises_hidden_seal() -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        reseal = hiding(monkeypatch, unpublished())

        def broken(lineage_id: str, _trusted: Any, _chain: Any = None) -> Checkpoint:
            raise LogVerificationError(lineage_id, "TRUNCATION_DETECTED", "a kept checkpoint saw more")

        monkeypatch.setattr(reseal, "_latest", broken)
        with pytest.raises(HiddenSealError) as raised:
            reseal.wait_for_outcome(PUBLISHED, timeout_s=0)
    assert (raised.value.seq, raised.value.verdict) == (None, "TRUNCATION_DETECTED")
    assert "the lineage's signed log does not verify: a kept checkpoint saw more" in raised.value.reason


def test_a_marker_back_at_the_deadline_is_the_outcome_not_a_finding() -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        reseal = hiding(monkeypatch, fixtures.honest())
        reads: list[str] = []

        def marker(lineage_id: str, _residual: str) -> dict[str, Any] | None:
            reads.append(lineage_id)
            return None if len(reads) == 1 else {"lineageId": lineage_id, "seq": 0}

        monkeypatch.setattr(reseal.table, "find_by_residual_id", marker)
        outcome = reseal.wait_for_outcome(PUBLISHED, timeout_s=0)
    assert outcome.kind == "SEALED" and len(reads) == 2
