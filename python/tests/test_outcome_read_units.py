"""The read units of the poll that first finds a write sealed (docs/pipeline.md, "Learning the
outcome of a write"), as the TypeScript test/unit/client/outcome-read-units.test.ts counts them:
a lineage of three real records (the TypeScript core's, export-artifacts.ts) stored in the table
layout, its indexed head one record behind, read through a counting fake of the boto3 client that
prices each call as DynamoDB does (a small item 1 unit strongly, 1/2 eventually; a batch per key)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import test_deployment_chain_reader as fixtures
import test_write_outcome_freshness as outcomes

import reseal.client as client_module
from reseal.client import PublishedWrite, ResealClient, WriteOutcome
from reseal.item_layout import LineageKeys, node_seq
from reseal.log import Checkpoint, merkle_tree_hash, sign_checkpoint
from reseal.tree_refs import subtree_refs


def s(text: str) -> dict[str, str]:
    return {"S": text}


class MeteredTable(fixtures.Table):
    """The fake table with ``query`` (the key conditions the client uses), recording every call as
    ``(operation, what, items, consistent)``."""

    def __init__(self, items: list[dict[str, Any]]) -> None:
        super().__init__(items)
        self.calls: list[tuple[str, str, int, bool]] = []
        self.missed_by_copies: set[str] = set()
        """What an eventually consistent ``get_item`` does not show (``_what`` names): a stale copy."""
        self.stale_copies: dict[str, dict[str, Any]] = {}
        """What an eventually consistent ``get_item`` shows as it was (``_what`` names): an older copy."""
        self.queries: list[tuple[dict[str, Any], int]] = []
        """Each ``query`` call's arguments and the items it read before its filter (what DynamoDB bills)."""

    def get_item(self, **args: Any) -> dict[str, Any]:
        key = args["Key"]
        what = _what(key["pk"]["S"], key["sk"]["S"])
        self.calls.append(("GetItem", what, 1, args["ConsistentRead"]))
        if not args["ConsistentRead"] and what in self.missed_by_copies:
            return {}
        if not args["ConsistentRead"] and what in self.stale_copies:
            return {"Item": self.stale_copies[what]}
        return super().get_item(**args)

    def batch_get_item(self, RequestItems: dict[str, Any]) -> dict[str, Any]:
        ((_table, request),) = RequestItems.items()
        keys = request["Keys"]
        what = _what(keys[0]["pk"]["S"], keys[0]["sk"]["S"])
        self.calls.append(("BatchGetItem", what, len(keys), request["ConsistentRead"]))
        return super().batch_get_item(RequestItems)

    def query(self, **args: Any) -> dict[str, Any]:
        values = args["ExpressionAttributeValues"]
        pk = values[":pk"]["S"]
        condition = args["KeyConditionExpression"]
        found = [i for (p, _sk), i in sorted(self.items.items()) if p == pk]
        if "BETWEEN" in condition:
            found = [i for i in found if values[":first"]["S"] <= i["sk"]["S"] <= values[":last"]["S"]]
        elif "begins_with" in condition:
            found = [i for i in found if i["sk"]["S"].startswith(values[":prefix"]["S"])]
        elif "sk >= :since" in condition:
            found = [i for i in found if i["sk"]["S"] >= values[":since"]["S"]]
        self.queries.append((args, len(found)))
        if args.get("FilterExpression") == "residualId = :residualId":
            found = [i for i in found if i.get("residualId") == values[":residualId"]]
        if args.get("ScanIndexForward") is False:
            found.reverse()
        what = "records" if "BETWEEN" in condition else "rejections" if pk.startswith("REJECTION#") else "conflicts"
        self.calls.append(("Query", what, 1, args["ConsistentRead"]))
        return {"Items": found[: args.get("Limit", len(found))]}

    def units(self) -> float:
        return sum(n * (1 if consistent else 0.5) for _op, _what, n, consistent in self.calls)

    def reads(self) -> list[str]:
        return [f"{what} {'strong' if consistent else 'eventual'}" for _op, what, _n, consistent in self.calls]


def _what(pk: str, sk: str) -> str:
    if pk == "DEPLOYMENT#log":
        return "deployment head" if sk == "HEAD" else "deployment leaf"
    if pk.startswith("INDEX#"):
        return "index tile"
    if sk == LineageKeys.HEAD:
        return "lineage head"
    if sk.startswith("RESIDUAL#"):
        return "marker"
    if sk.startswith("RECORD#"):
        return "record"
    return sk


class Lineage:
    """Three real records of one lineage stored as the sealer lays them out, their deployment
    index holding the first ``indexed``, and a client whose write is the last record."""

    def __init__(self, records: list[dict[str, Any]], *, signed: bool, indexed: int) -> None:
        self.records = records
        self.lineage_id: str = records[0]["header"]["lineageId"]
        self.residual_id: str = records[-1]["header"]["residualId"]
        self.signed = signed
        self.table = MeteredTable([*self._lineage_items(), *self._deployment(indexed)])

    def _leaves(self, size: int) -> list[bytes]:
        return [bytes.fromhex(r["recordHash"]) for r in self.records[:size]]

    def _lineage_items(self) -> list[dict[str, Any]]:
        pk = s(LineageKeys.lineage(self.lineage_id))
        items: list[dict[str, Any]] = []
        for seq, record in enumerate(self.records):
            nodes = []
            level = 0
            while (seq + 1) % (2**level) == 0:
                index = (seq + 1) // 2**level - 1
                nodes.append(
                    merkle_tree_hash(self._leaves(len(self.records))[index * 2**level : (index + 1) * 2**level])
                )
                assert node_seq(level, index) == seq
                level += 1
            items.append(
                {
                    "pk": pk,
                    "sk": s(LineageKeys.record(seq)),
                    "record": s(json.dumps(record)),
                    "nodes": {"B": b"".join(nodes)},
                }
            )
        size = len(self.records)
        last = self.records[-1]
        frontier = [
            merkle_tree_hash(self._leaves(size)[(i := ref[1] * 2 ** ref[0]) : i + 2 ** ref[0]])
            for ref in subtree_refs(0, size - 1)
        ]
        head: dict[str, Any] = {
            "pk": pk,
            "sk": s(LineageKeys.HEAD),
            "seq": {"N": str(size - 1)},
            "recordHash": s(last["recordHash"]),
            "generationEpoch": {"N": str(last["header"]["generationEpoch"])},
            "frontier": {"B": b"".join(frontier)},
        }
        if self.signed:
            origin = f"{outcomes.STACK.log_key.name}/{self.lineage_id}"
            head["checkpoint"] = s(
                sign_checkpoint(Checkpoint(origin, size, merkle_tree_hash(self._leaves(size))), fixtures.SIGNER)
            )
        marker = {
            "pk": pk,
            "sk": s(LineageKeys.residual(self.residual_id)),
            "lineageId": s(self.lineage_id),
            "seq": {"N": str(size - 1)},
        }
        return [*items, head, marker]

    def _index(self, indexed: int) -> tuple[bytes, list[dict[str, Any]]]:
        """The index root over the first ``indexed`` records, and its items."""
        held = self.records[indexed - 1]
        entries = [
            {
                "kind": "lineage",
                "lineageId": self.lineage_id,
                "value": {
                    "treeSize": indexed,
                    "rootHash": merkle_tree_hash(self._leaves(indexed)).hex(),
                    "headRecordHash": held["recordHash"],
                    "generationEpoch": held["header"]["generationEpoch"],
                    "writerPolicyDigest": None,
                },
            },
            *(
                {
                    "kind": "residual",
                    "lineageId": self.lineage_id,
                    "residualId": r["header"]["residualId"],
                    "value": {"seq": seq, "recordHash": r["recordHash"]},
                }
                for seq, r in enumerate(self.records[:indexed])
            ),
        ]
        return fixtures.index_items(entries)

    def _deployment(self, indexed: int) -> list[dict[str, Any]]:
        root, nodes = self._index(indexed)
        return [*nodes, *fixtures.deployment_items([root], "")]

    def integrate(self) -> None:
        """The integrator indexes every record (a new index root, the deployment head moved)."""
        self.table.items.update({(i["pk"]["S"], i["sk"]["S"]): i for i in self._deployment(len(self.records))})

    def client(
        self, monkeypatch: pytest.MonkeyPatch, on_sleep: Callable[[int], None] = lambda _n: None
    ) -> ResealClient:
        """A client on a fake monotonic clock only its sleeps advance."""
        now = [0.0]
        sleeps = [0]

        def sleep(seconds: float) -> None:
            now[0] += seconds
            sleeps[0] += 1
            on_sleep(sleeps[0])

        reseal = ResealClient(
            outcomes.STACK,
            dynamodb=self.table,
            sqs=None,
            events=None,
            policy=fixtures.UNWITNESSED,
            now_ms=lambda: fixtures.NOW_MS,
            sleep=sleep,
        )
        monkeypatch.setattr(reseal, "_clock", lambda: now[0])
        # The request is the record's (its content binding is tested with the outcomes).
        monkeypatch.setattr(client_module, "_binds_request", lambda _record, _request: True)
        return reseal

    def wait(self, reseal: ResealClient, **options: Any) -> WriteOutcome:
        published = PublishedWrite("message", 0, {"lineageId": self.lineage_id, "residualId": self.residual_id})
        return reseal.wait_for_outcome(published, poll_interval_s=0.5, **options)


def state_of(outcome: WriteOutcome) -> str | None:
    return None if outcome.freshness is None else outcome.freshness.state


def test_a_seal_in_a_signed_checkpoint_awaiting_integration_reads_no_node_and_no_refusal(
    ts_artifacts: dict[str, Any],
) -> None:
    lineage = Lineage(ts_artifacts["records"], signed=True, indexed=2)
    with pytest.MonkeyPatch.context() as monkeypatch:
        outcome = lineage.wait(lineage.client(monkeypatch), timeout_s=10)
    assert outcome.kind == "SEALED" and state_of(outcome) == "SEALED_AWAITING_INTEGRATION"
    assert outcome.checkpoint is not None and outcome.checkpoint.size == 3
    # The fixture's deployment log and index (one leaf, one item a node: read through as the
    # deployed layout's tiles are), all eventually consistent.
    tiles = [r for r in lineage.table.reads() if r.startswith(("deployment leaf", "index tile"))]
    assert set(tiles) == {"deployment leaf eventual", "index tile eventual"}
    # The marker (a copy first: the write not yet shown sealed or refused, then strongly), the
    # deployment head (a copy), the deployment log and the index, the lineage head, and the record
    # (no last record key: a head that stands decides alone, as in TypeScript). The inclusion proof of the last record is the head item's frontier and
    # the consistency proof from the indexed head one record behind takes the record's leaf and that
    # frontier (proven with it): no node read. A seal in a signed checkpoint outranks any refusal.
    # A plain wait answers with it, so the proof found awaiting on a copy is decided again on the
    # deployment head read strongly (a copy may be older than the integration that proves it).
    reads = lineage.table.reads()
    first = reads.index("deployment head strong")
    assert reads[:3] == ["marker eventual", "marker strong", "deployment head eventual"]
    assert reads[first - 2 : first] == ["lineage head strong", "record eventual"]
    assert "record strong" not in reads and "refusals strong" not in reads
    assert not any(op == "Query" for op, *_ in lineage.table.calls), lineage.table.calls


def test_an_edited_frontier_is_read_past_from_the_nodes_with_the_same_answer(ts_artifacts: dict[str, Any]) -> None:
    lineage = Lineage(ts_artifacts["records"], signed=True, indexed=2)
    head = lineage.table.items[(LineageKeys.lineage(lineage.lineage_id), LineageKeys.HEAD)]
    head["frontier"] = {"B": bytes(32)}
    with pytest.MonkeyPatch.context() as monkeypatch:
        outcome = lineage.wait(lineage.client(monkeypatch), timeout_s=10)
    assert outcome.kind == "SEALED" and state_of(outcome) == "SEALED_AWAITING_INTEGRATION"
    # The frontier proves nothing: the inclusion proof reads the record items' nodes (the
    # consistency proof from 2 records to 3 is the record's own leaf).
    assert [(op, c) for op, what, _n, c in lineage.table.calls if what == "record"][:2] == [
        ("GetItem", False),
        ("BatchGetItem", False),
    ]


def test_a_seal_already_integrated_reads_no_refusal_and_no_node(ts_artifacts: dict[str, Any]) -> None:
    for signed in (True, False):
        lineage = Lineage(ts_artifacts["records"], signed=signed, indexed=3)
        with pytest.MonkeyPatch.context() as monkeypatch:
            outcome = lineage.wait(lineage.client(monkeypatch), timeout_s=10)
        assert outcome.kind == "SEALED" and state_of(outcome) == "PROVEN"
        reads = [r for r in lineage.table.reads() if not r.startswith(("deployment leaf", "index tile"))]
        assert reads == [
            "marker eventual",
            "marker strong",
            "deployment head eventual",
            "lineage head strong",
            "record eventual",
        ]


def test_a_wait_until_proven_reads_the_refusals_beside_a_seal_awaiting_integration_at_the_deadline_alone(
    ts_artifacts: dict[str, Any],
) -> None:
    # The head the sealer MAC'd: the seal is the table's word until the index holds it.
    lineage = Lineage(ts_artifacts["records"], signed=False, indexed=2)
    with pytest.MonkeyPatch.context() as monkeypatch:
        outcome = lineage.wait(lineage.client(monkeypatch), timeout_s=10, until_proven=True)
    assert outcome.kind == "SEALED" and state_of(outcome) == "SEALED_AWAITING_INTEGRATION"
    calls = lineage.table.calls
    # 5 full proofs (parked between, docs/pipeline.md "Polling the table"), 2 queries by the last:
    # against 10 when each proof read them. No proof reads the lineage's last record key: the head
    # item decides alone (5 queries more otherwise).
    assert sum(1 for _op, what, _n, _c in calls if what == "lineage head") == 5
    assert [what for op, what, _n, _c in calls if op == "Query"] == ["rejections", "conflicts"]
    # The deployment head strongly only at the deadline; the 4 proofs before it and the marks read a copy.
    assert sum(1 for _op, what, _n, consistent in calls if what == "deployment head" and consistent) == 1


def test_a_plain_wait_answers_a_seal_under_a_mac_d_head_at_its_first_proof(ts_artifacts: dict[str, Any]) -> None:
    # The TypeScript waitFor answers a plain wait with the first seal it proves, awaiting integration
    # or not (docs/pipeline.md, "Polling the table"): no poll past it, the same answer sooner.
    lineage = Lineage(ts_artifacts["records"], signed=False, indexed=2)
    sleeps: list[int] = []
    with pytest.MonkeyPatch.context() as monkeypatch:
        outcome = lineage.wait(lineage.client(monkeypatch, sleeps.append), timeout_s=10)
    assert outcome.kind == "SEALED" and state_of(outcome) == "SEALED_AWAITING_INTEGRATION"
    assert outcome.checkpoint is None
    assert sleeps == []
    # The first attempt answers: its proof on a copy of the deployment head, decided again on the
    # head read strongly (the answer), then the two refusal queries a seal no signed tree proves
    # needs (a refusal signed for the request outranks it).
    reads = lineage.table.reads()
    assert reads[:3] == ["marker eventual", "marker strong", "deployment head eventual"]
    assert reads[-3:] == ["record eventual", "rejections strong", "conflicts strong"]
    assert "deployment head strong" in reads
    assert [r for r in reads if r.startswith(("rejections", "conflicts"))] == ["rejections strong", "conflicts strong"]


def test_a_seal_integrated_while_waiting_until_proven_is_proven_the_same(ts_artifacts: dict[str, Any]) -> None:
    lineage = Lineage(ts_artifacts["records"], signed=False, indexed=2)
    with pytest.MonkeyPatch.context() as monkeypatch:
        reseal = lineage.client(monkeypatch, lambda n: lineage.integrate() if n == 3 else None)
        outcome = lineage.wait(reseal, timeout_s=10, until_proven=True)
    assert outcome.kind == "SEALED" and state_of(outcome) == "PROVEN"
    assert not any(what in ("rejections", "conflicts") for _op, what, _n, _c in lineage.table.calls)


def test_the_polls_before_the_seal_read_the_marker_and_the_refusals_in_a_copy(ts_artifacts: dict[str, Any]) -> None:
    lineage = Lineage(ts_artifacts["records"], signed=True, indexed=2)
    marker_key = (LineageKeys.lineage(lineage.lineage_id), LineageKeys.residual(lineage.residual_id))
    marker = lineage.table.items.pop(marker_key)
    with pytest.MonkeyPatch.context() as monkeypatch:
        reseal = lineage.client(
            monkeypatch, lambda n: lineage.table.items.update({marker_key: marker}) if n == 3 else None
        )
        outcome = lineage.wait(reseal, timeout_s=10)
    assert outcome.kind == "SEALED" and state_of(outcome) == "SEALED_AWAITING_INTEGRATION"
    reads = lineage.table.reads()
    # Three polls find nothing in a copy: the marker each (half a unit), the refusal queries at the
    # first and 1 s later (their backoff); the fourth shows the marker and the proof reads it again
    # strongly.
    empty = ["marker eventual", "rejections eventual", "conflicts eventual"]
    assert reads[:9] == [*empty, "marker eventual", *empty, "marker eventual", "marker strong"]
    assert not any(r.startswith(("rejections", "conflicts")) for r in reads[11:])


def test_a_copy_that_never_shows_the_marker_delays_the_answer_to_the_deadline_never_changes_it(
    ts_artifacts: dict[str, Any],
) -> None:
    lineage = Lineage(ts_artifacts["records"], signed=True, indexed=2)
    lineage.table.missed_by_copies.add("marker")
    with pytest.MonkeyPatch.context() as monkeypatch:
        late = lineage.wait(lineage.client(monkeypatch), timeout_s=2)
        strong = lineage.wait(lineage.client(monkeypatch), timeout_s=0)
    assert late.kind == strong.kind == "SEALED"
    assert late.record == strong.record and state_of(late) == state_of(strong) == "SEALED_AWAITING_INTEGRATION"
    # 4 polls saw nothing in a copy; the deadline's attempt read the marker strongly and answered.
    assert lineage.table.reads().count("marker eventual") == 4


def test_a_plain_wait_never_answers_awaiting_from_a_stale_copy_of_the_deployment_head(
    ts_artifacts: dict[str, Any],
) -> None:
    lineage = Lineage(ts_artifacts["records"], signed=True, indexed=2)
    # The deployment log moves from one leaf (2 records indexed) to two (all 3); the copy an
    # eventually consistent read may serve is its head from before, genuine and signed.
    before, _ = lineage._index(2)
    after, nodes = lineage._index(3)
    stale = next(i for i in fixtures.deployment_items([before], "") if i["sk"]["S"] == "HEAD")
    lineage.table.items.update(
        {(i["pk"]["S"], i["sk"]["S"]): i for i in [*nodes, *fixtures.deployment_items([before, after], "")]}
    )
    lineage.table.stale_copies["deployment head"] = stale
    with pytest.MonkeyPatch.context() as monkeypatch:
        outcome = lineage.wait(lineage.client(monkeypatch), timeout_s=10)
    assert outcome.kind == "SEALED" and state_of(outcome) == "PROVEN"


def test_a_deleted_marker_beside_a_refusal_signed_for_the_request_never_turns_a_proven_seal_into_rejected(
    ts_artifacts: dict[str, Any],
) -> None:
    """docs/pipeline.md, "Polling the table": a refused duplicate delivery of a sealed write, its
    marker deleted by a table writer: the seal is looked for where the table cannot forge it (the
    index, then the signed log) before the refusal answers."""
    from reseal.errors import HiddenSealError

    lineage = Lineage(ts_artifacts["records"], signed=True, indexed=3)
    marker = (LineageKeys.lineage(lineage.lineage_id), f"RESIDUAL#{lineage.residual_id}")
    assert marker in lineage.table.items
    del lineage.table.items[marker]
    refused = WriteOutcome("REJECTED", refusal={"atMs": 0, "stage": "GUARD"}, statement={"outcome": "REJECTED"})
    with pytest.MonkeyPatch.context() as monkeypatch:
        reseal = lineage.client(monkeypatch)
        # A refusal signed for this very request (its signature is tested with the outcomes).
        monkeypatch.setattr(reseal, "_refusals_of", lambda *_a, **_k: (refused, None))
        with pytest.raises(HiddenSealError):
            lineage.wait(reseal, timeout_s=10)


def test_until_the_write_shows_a_poll_reads_the_marker_alone_between_refusal_checks(
    ts_artifacts: dict[str, Any],
) -> None:
    """docs/pipeline.md, "Polling the table": every poll reads the marker (a copy), the refusals
    only at the first poll, then after 1, 2, 4 s and every 4 s; the deadline reads all strongly."""
    lineage = Lineage(ts_artifacts["records"], signed=True, indexed=3)
    lineage.residual_id = "r-never-sealed"
    checks: list[float] = []
    with pytest.MonkeyPatch.context() as monkeypatch:
        reseal = lineage.client(monkeypatch)
        refusals_of = reseal._refusals_of

        def timed(request: dict[str, Any], since: int, *, consistent: bool = True) -> Any:
            if not consistent:
                checks.append(reseal._clock())
            return refusals_of(request, since, consistent=consistent)

        monkeypatch.setattr(reseal, "_refusals_of", timed)
        with pytest.raises(client_module.WaitTimeoutError):
            lineage.wait(reseal, timeout_s=12)
    reads = lineage.table.reads()
    assert checks == [0.0, 1.0, 3.0, 7.0, 11.0]
    assert reads.count("marker eventual") == 24
    assert reads.count("rejections eventual") == reads.count("conflicts eventual") == 5
    # 24 polls: 12 units of marker copies and 5 of refusal copies, against 36 before the backoff.
    assert (
        sum(0.5 for r in reads if r.endswith("eventual") and r.startswith(("marker", "rejections", "conflicts"))) == 17
    )
    # The deadline's attempt reads the marker and both refusal queries strongly, whatever was due.
    deadline = reads.index("marker strong")
    assert reads[deadline : deadline + 3] == ["marker strong", "rejections strong", "conflicts strong"]


def test_a_refusal_landing_between_refusal_checks_answers_at_the_next_one(ts_artifacts: dict[str, Any]) -> None:
    lineage = Lineage(ts_artifacts["records"], signed=True, indexed=3)
    lineage.residual_id = "r-never-sealed"
    refused = WriteOutcome("REJECTED", refusal={"atMs": 1500, "stage": "GUARD"}, statement={"outcome": "REJECTED"})
    landed = [False]
    with pytest.MonkeyPatch.context() as monkeypatch:
        # Lands after the third sleep (1.5 s), just past the check at 1 s; the next check is at 3 s.
        reseal = lineage.client(monkeypatch, lambda n: landed.__setitem__(0, landed[0] or n == 3))
        # A refusal signed for this very request (its signature is tested with the outcomes).
        monkeypatch.setattr(reseal, "_refusals_of", lambda *_a, **_k: (refused if landed[0] else None, None))
        outcome = lineage.wait(reseal, timeout_s=10)
        assert outcome is refused
        assert reseal._clock() == 3.0


def test_a_poll_reads_no_rejection_filed_before_the_publish(ts_artifacts: dict[str, Any]) -> None:
    """A lineage anyone who can send to the queue filled with 1,000 rejections of this residual id
    before the publish: the rejection query is bounded by the publish time less the clock skew in
    its key (``sk >= <ISO>``), so none of them is read (a filter would be billed for each)."""
    lineage = Lineage(ts_artifacts["records"], signed=True, indexed=3)
    lineage.residual_id = "r-never-sealed"
    pk = s(LineageKeys.rejection(lineage.lineage_id))
    for i in range(1_000):
        at_ms = -60_000 + i  # the wait publishes at 0: since is -5,000 ms
        sk = f"{LineageKeys.rejection_sk_floor(at_ms)}#m-{i}"
        lineage.table.items[(pk["S"], sk)] = {
            "pk": pk,
            "sk": s(sk),
            "residualId": s(lineage.residual_id),
            "atMs": {"N": str(at_ms)},
        }
    with pytest.MonkeyPatch.context() as monkeypatch, pytest.raises(client_module.WaitTimeoutError):
        lineage.wait(lineage.client(monkeypatch), timeout_s=1)
    rejection_queries = [
        (args, n) for args, n in lineage.table.queries if args["ExpressionAttributeValues"][":pk"] == pk
    ]
    assert len(rejection_queries) == 2  # the first poll's copy and the deadline's strong read
    for args, read in rejection_queries:
        assert args["KeyConditionExpression"] == "pk = :pk AND sk >= :since"
        assert args["ExpressionAttributeValues"][":since"] == s("1969-12-31T23:59:55.000Z")
        assert read == 0
