"""The seals of the client's own waited writes seen awaiting integration (docs/verifiable-log.md,
"Seals seen awaiting integration"): the pure rules (``reseal.seen_seal``, those of the TypeScript
``shared/log/seen-seal.ts``), the checkpoint file's ``seenSeals`` changed under the store's rule
and shared with the TypeScript ``FileCheckpointStore``, and the client remembering, forgetting,
pruning and checking them over the sealed records of test/vectors/seal.json (test_index_tree_heads'
fixtures), as test/unit/client/seen-seals.test.ts expects of the TypeScript client."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
import test_deployment_chain_reader as fixtures
import test_index_tree_heads as heads
from conftest import REPO

import reseal.client as client_module
from reseal import (
    FileCheckpointStore,
    LogVerificationError,
    MemoryCheckpointStore,
    VerificationVerdict,
    isolate_delta,
)
from reseal.client import PublishedWrite, ResealClient
from reseal.errors import InvalidInputError, WaitTimeoutError
from reseal.item_layout import LineageKeys
from reseal.log import merkle_tree_hash
from reseal.seen_seal import (
    MAX_SEEN_SEALS_PER_LINEAGE,
    add_seen_seal,
    prune_seen_seals,
    seen_seal_contradiction,
)

LINEAGE = heads.LINEAGE
KEY = heads.ORIGIN
AT_MS = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z


def seal(seq: int, record_hash: str = "ab" * 32) -> dict[str, Any]:
    return {
        "lineageId": LINEAGE,
        "residualId": f"r-{seq}",
        "seq": seq,
        "recordHash": record_hash,
        "treeSize": seq + 1,
        "rootHash": "cd" * 32,
        "seenAtMs": AT_MS,
    }


# --- the rules ---------------------------------------------------------------------------------


def test_a_seal_is_kept_once_per_seq_and_record_sorted_by_seq_the_newest_64_per_lineage() -> None:
    first = {**seal(2), "seenAtMs": AT_MS}
    entries = add_seen_seal(add_seen_seal([], first), {**seal(2), "seenAtMs": AT_MS + 5})
    assert entries == [first]  # the first sighting stays
    other = seal(2, "ef" * 32)
    assert add_seen_seal(add_seen_seal(entries, seal(0)), other) == [seal(0), first, other]
    many: list[dict[str, Any]] = []
    for seq in range(MAX_SEEN_SEALS_PER_LINEAGE + 5):
        many = add_seen_seal(many, seal(seq))
    assert len(many) == MAX_SEEN_SEALS_PER_LINEAGE == 64
    assert many[0]["seq"] == 5 and many[-1]["seq"] == 68


def test_the_seals_the_index_covers_are_pruned() -> None:
    entries = [seal(1), seal(2), seal(3)]
    assert prune_seen_seals(entries, 3) == [seal(3)]
    assert prune_seen_seals(entries, 0) == entries
    assert prune_seen_seals(entries, 4) == []


def test_a_seal_is_contradicted_by_its_residual_id_absent_a_smaller_tree_or_another_record_at_its_seq() -> None:
    entries = [seal(1), seal(2)]
    held = {1: "ab" * 32, 2: "ab" * 32}
    assert seen_seal_contradiction(entries, 3, held) is None
    assert seen_seal_contradiction(entries, 3, {}) is None  # a seq not proven says nothing
    sighting = (
        "this client saw residual r-2 sealed at seq 2 (record abababababababab…, in the head item's tree of 3 "
        "records) at 2026-01-01T00:00:00.000Z, awaiting integration"
    )
    absent = seen_seal_contradiction(entries, 3, held, "r-2")
    assert absent is not None and absent.seen == seal(2)
    assert absent.reason == (
        f"rollback: residual r-2 reads absent, but {sighting}: its record and marker were removed from the table"
    )
    smaller = seen_seal_contradiction(entries, 2, {1: "ab" * 32})
    assert smaller is not None and smaller.seen == seal(2)
    assert smaller.reason == (
        f"rollback: the lineage's tree now holds 2 records, but {sighting}: the head was rewound over records "
        "not yet integrated"
    )
    resealed = seen_seal_contradiction(entries, 3, {1: "ab" * 32, 2: "0123456789abcdef" * 4})
    assert resealed is not None and resealed.seen == seal(2)
    assert resealed.reason == (
        f"rollback: seq 2 now holds record 0123456789abcdef…, but {sighting}: the head was rewound and resealed "
        "over records not yet integrated"
    )
    # The first contradicted seal, in seq order.
    first = seen_seal_contradiction(entries, 0, {})
    assert first is not None and first.seen == seal(1)


# --- the checkpoint file -----------------------------------------------------------------------


def test_concurrent_updates_of_one_file_store_keep_every_seal_and_an_empty_lineage_loses_its_key(
    tmp_path: Path,
) -> None:
    path = tmp_path / "checkpoints.json"
    store = FileCheckpointStore(path)
    store.save("reseal/test-stack", "note\n")
    threads = [
        threading.Thread(target=store.update_seen_seals, args=(KEY, lambda now, seq=seq: add_seen_seal(now, seal(seq))))
        for seq in range(10)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [entry["seq"] for entry in store.load_seen_seals(KEY)] == list(range(10))
    assert store.load("reseal/test-stack") == "note\n"
    store.update_seen_seals(KEY, lambda now: prune_seen_seals(now, 10))
    assert json.loads(path.read_text("utf-8")) == {"formatVersion": 3, "checkpoints": {"reseal/test-stack": "note\n"}}
    with pytest.raises(InvalidInputError):
        store.update_seen_seals(KEY, lambda now: [{**seal(0), "seq": -1}])
    assert store.load_seen_seals(KEY) == []


TS_ROUND_TRIP = """
import { FileCheckpointStore } from './client/file-checkpoint-store';
import { addSeenSeal } from './shared/log/seen-seal';
const [path, key, seal] = process.argv.slice(-3);
const store = new FileCheckpointStore(path);
void (async () => {
  const before = await store.loadSeenSeals(key);
  if (seal !== '-') await store.updateSeenSeals(key, (current) => addSeenSeal(current, JSON.parse(seal)));
  process.stdout.write(JSON.stringify(before));
})();
"""


def ts_seen_seals(path: Path, added: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The TypeScript ``FileCheckpointStore``'s seals under ``KEY`` (read, and checked by its schema),
    after which it adds ``added`` (with ``addSeenSeal``)."""
    done = subprocess.run(
        [str(REPO / "node_modules" / ".bin" / "tsx"), "--eval", TS_ROUND_TRIP, "--", str(path), KEY,
         "-" if added is None else json.dumps(added)],
        cwd=REPO, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    seals: list[dict[str, Any]] = json.loads(done.stdout)
    return seals


def test_the_seals_seen_round_trip_between_the_typescript_and_the_python_store(tmp_path: Path) -> None:
    path = tmp_path / "checkpoints.json"
    assert ts_seen_seals(path, seal(3)) == []
    store = FileCheckpointStore(path)
    assert store.load_seen_seals(KEY) == [seal(3)]
    store.update_seen_seals(KEY, lambda now: add_seen_seal(now, seal(1)))
    store.update_seen_seals(KEY, lambda now: add_seen_seal(now, seal(3)))  # known: kept once
    assert ts_seen_seals(path, None) == [seal(1), seal(3)]
    store.update_seen_seals(KEY, lambda now: prune_seen_seals(now, 2))
    assert ts_seen_seals(path, seal(5)) == [seal(3)]
    assert store.load_seen_seals(KEY) == [seal(3), seal(5)]


# --- the client --------------------------------------------------------------------------------

PUBLISHED = PublishedWrite("m", fixtures.NOW_MS, {"lineageId": LINEAGE, "residualId": "residual-1"})
ENV = {"DB_HOST": "db-2"}


def awaiting() -> list[dict[str, Any]]:
    """Record 1 (residual-1) sealed past the index (1 record): its head item, MAC'd, no signed
    checkpoint, claims the tree of both records (its frontier, the tree before the head record)."""
    items = [*heads.lineage_items(2), *heads.deployment(1)]
    head = next(i for i in items if i["sk"]["S"] == LineageKeys.HEAD)
    head["frontier"] = fixtures.s(f'["{merkle_tree_hash(heads.LEAVES[:1]).hex()}"]')
    return items


def rewind(table: heads.Table) -> None:
    """What a table writer can do before the integration: the head put back to record 0, record 1
    and residual-1's marker deleted."""
    pk = LineageKeys.lineage(LINEAGE)
    del table.items[(pk, LineageKeys.record(1))]
    del table.items[(pk, LineageKeys.residual("residual-1"))]
    table.items[(pk, LineageKeys.HEAD)] = next(i for i in heads.lineage_items(1) if i["sk"]["S"] == LineageKeys.HEAD)


def integrate(table: heads.Table) -> None:
    """The next integration, appended to the deployment log of :func:`awaiting` (a third leaf: the
    index now holds both records), as an honest integrator appends it."""
    other = [fixtures.lineage_entry("lineage-b", 1)]
    entries = [
        other,
        [*other, heads.lineage_entry(1), heads.residual_entry(0)],
        [*other, heads.lineage_entry(2), heads.residual_entry(0), heads.residual_entry(1)],
    ]
    built = [fixtures.index_items(e) for e in entries]
    items = [*(n for _, nodes in built for n in nodes), *fixtures.deployment_items([r for r, _ in built], "")]
    table.items.update({(i["pk"]["S"], i["sk"]["S"]): i for i in items})


def reader(
    items: list[dict[str, Any]], store: Any, monkeypatch: pytest.MonkeyPatch
) -> tuple[ResealClient, heads.Table]:
    """A client over ``items`` keeping its checkpoints in ``store``; the write of ``PUBLISHED`` is
    this request's (residual-1's record binds it), with no refusals."""
    table = heads.Table(items)
    client = ResealClient(
        heads.STACK,
        dynamodb=table,
        sqs=None,
        events=None,
        checkpoints=store,
        policy=fixtures.UNWITNESSED,
        now_ms=lambda: AT_MS,
    )
    client._events = heads.Events()
    monkeypatch.setattr(client_module, "_binds_request", lambda _record, _request: True)
    monkeypatch.setattr(client.table, "rejections", lambda *_, **__: [])
    monkeypatch.setattr(client.table, "conflicts", lambda *_, **__: [])
    return client, table


def recall(client: ResealClient, target: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Any:
    """A recall of ``target`` whose stored answer is what triage answers over the table now: the
    latest record proven with no lineage checkpoint, or ``NOT_FOUND`` for a residual id."""
    table = client.table

    def answer(lineage_id: str, request_id: str) -> dict[str, Any]:
        if "residualId" in target:
            return {"requestId": request_id, "lineageId": lineage_id, "outcome": "REFUSED", "refusalCode": "NOT_FOUND"}
        seq = table.last_record_seq(lineage_id)
        record = heads.RECORDS[seq]
        return {
            "requestId": request_id,
            "lineageId": lineage_id,
            "seq": seq,
            "outcome": "TRIAGED",
            "report": isolate_delta(record["manifest"], ENV),
            "proof": {"checkpoint": None, "seq": seq, "recordHash": record["recordHash"]},
        }

    monkeypatch.setattr(client.table, "triage_report", answer)
    return client.recall(LINEAGE, ENV, target=target, timeout_s=0)


def shown(result: Any) -> str:
    return f"{result.end} {result.verdict or '-'} {result.freshness.state if result.freshness else 'no freshness'}"


def test_a_waited_write_seen_awaiting_integration_refuses_the_tail_rewound_over_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = MemoryCheckpointStore()
    client, table = reader(awaiting(), store, monkeypatch)
    outcome = client.wait_for_outcome(PUBLISHED, timeout_s=0)
    assert outcome.freshness is not None and outcome.freshness.state == "SEALED_AWAITING_INTEGRATION"
    assert store.load_seen_seals(KEY) == [
        {
            "lineageId": LINEAGE,
            "residualId": "residual-1",
            "seq": 1,
            "recordHash": heads.RECORDS[1]["recordHash"],
            "treeSize": 2,
            "rootHash": merkle_tree_hash(heads.LEAVES).hex(),
            "seenAtMs": AT_MS,
        }
    ]
    # Before the rewind the seal holds: the record past the index is only awaiting integration.
    assert shown(recall(client, {"latest": True}, monkeypatch)) == (
        "NOT_INTACT UNVERIFIED_TAMPER_RISK SEALED_AWAITING_INTEGRATION"
    )
    rewind(table)
    by_id = recall(client, {"residualId": "residual-1"}, monkeypatch)
    assert shown(by_id) == "NOT_INTACT UNVERIFIED_TAMPER_RISK NOT_NEWEST", by_id.reason
    assert by_id.reason.startswith(
        "rollback: residual residual-1 reads absent, but this client saw residual residual-1 sealed at seq 1 "
    ), by_id.reason
    assert by_id.freshness.reason == by_id.reason
    latest = recall(client, {"latest": True}, monkeypatch)
    assert shown(latest) == "NOT_INTACT UNVERIFIED_TAMPER_RISK NOT_NEWEST", latest.reason
    assert (latest.record, latest.delta) == (None, None)
    assert latest.reason.startswith(
        "rollback: the lineage's tree now holds 1 records, but this client saw residual residual-1 sealed at seq 1"
    ), latest.reason
    with pytest.raises(LogVerificationError, match="UNVERIFIED_TAMPER_RISK: rollback: the lineage's tree now holds 1"):
        client.proven_records(LINEAGE)
    # Without the memory the rewound table is consistent with everything kept.
    cold, _ = reader(list(table.items.values()), MemoryCheckpointStore(), monkeypatch)
    assert shown(recall(cold, {"residualId": "residual-1"}, monkeypatch)) == "NOT_FOUND - ABSENT"
    assert shown(recall(cold, {"latest": True}, monkeypatch)) == "TRIAGED VERIFIED_INTACT PROVEN"
    assert len(cold.proven_records(LINEAGE)[0]) == 1


def test_another_record_at_a_seq_seen_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # The seal seen at seq 1 was another record's: the table now proves residual-1's there.
    store = MemoryCheckpointStore()
    store.update_seen_seals(KEY, lambda now: add_seen_seal(now, {**seal(1, "ef" * 32), "treeSize": 2}))
    client, _ = reader(awaiting(), store, monkeypatch)
    got = recall(client, {"latest": True}, monkeypatch)
    assert (got.end, got.verdict) == ("NOT_INTACT", VerificationVerdict.UNVERIFIED_TAMPER_RISK), got.reason
    assert got.reason.startswith(
        f"rollback: seq 1 now holds record {heads.RECORDS[1]['recordHash'][:16]}…, but this client saw residual r-1"
    ), got.reason


def test_a_seal_a_recall_reads_past_the_index_is_never_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    store = MemoryCheckpointStore()
    client, table = reader(awaiting(), store, monkeypatch)
    assert shown(recall(client, {"latest": True}, monkeypatch)).endswith("SEALED_AWAITING_INTEGRATION")
    assert store.load_seen_seals(KEY) == []
    rewind(table)
    assert shown(recall(client, {"residualId": "residual-1"}, monkeypatch)) == "NOT_FOUND - ABSENT"


def test_a_waited_write_proven_is_forgotten_and_a_recall_under_the_index_prunes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = MemoryCheckpointStore()
    client, table = reader(awaiting(), store, monkeypatch)
    client.wait_for_outcome(PUBLISHED, timeout_s=0)
    assert len(store.load_seen_seals(KEY)) == 1
    integrate(table)
    proven = client.wait_for_outcome(PUBLISHED, timeout_s=0)
    assert proven.freshness is not None and proven.freshness.state == "PROVEN"
    assert store.load_seen_seals(KEY) == []
    # Another client's wait remembers it; a recall under the index that now holds it prunes it.
    other = MemoryCheckpointStore()
    client, table = reader(awaiting(), other, monkeypatch)
    client.wait_for_outcome(PUBLISHED, timeout_s=0)
    assert len(other.load_seen_seals(KEY)) == 1
    integrate(table)
    assert shown(recall(client, {"latest": True}, monkeypatch)) == "TRIAGED VERIFIED_INTACT PROVEN"
    assert other.load_seen_seals(KEY) == []


def test_a_file_store_keeps_the_seal_for_the_next_client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "checkpoints.json"
    client, table = reader(awaiting(), FileCheckpointStore(path), monkeypatch)
    client.wait_for_outcome(PUBLISHED, timeout_s=0)
    assert json.loads(path.read_text("utf-8"))["seenSeals"][KEY][0]["residualId"] == "residual-1"
    assert ts_seen_seals(path, None)[0]["seq"] == 1  # the TypeScript store reads it
    rewind(table)
    later, _ = reader(list(table.items.values()), FileCheckpointStore(path), monkeypatch)
    assert shown(recall(later, {"residualId": "residual-1"}, monkeypatch)) == (
        "NOT_INTACT UNVERIFIED_TAMPER_RISK NOT_NEWEST"
    )


def test_a_planted_seal_of_a_residual_id_is_forgotten_once_the_index_proves_it_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # docs/verifiable-log.md, "Seals seen awaiting integration": a table writer's forged tail once
    # showed a copy of residual-1's request at seq 5; the index then proves the honest residual-1 at
    # seq 1, and every seal of residual-1 is settled by it.
    store = MemoryCheckpointStore()
    planted = {**seal(5, "ef" * 32), "residualId": "residual-1", "treeSize": 6}
    store.update_seen_seals(KEY, lambda now: add_seen_seal(now, planted))
    client, table = reader(awaiting(), store, monkeypatch)
    integrate(table)
    proven = client.wait_for_outcome(PUBLISHED, timeout_s=0)
    assert proven.freshness is not None and proven.freshness.state == "PROVEN"
    assert store.load_seen_seals(KEY) == []
    assert shown(recall(client, {"latest": True}, monkeypatch)) == "TRIAGED VERIFIED_INTACT PROVEN"


def test_a_seal_the_index_covers_with_another_record_is_reported_once_then_settled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = MemoryCheckpointStore()
    store.update_seen_seals(KEY, lambda now: add_seen_seal(now, {**seal(1, "ef" * 32), "treeSize": 2}))
    client, table = reader(awaiting(), store, monkeypatch)
    integrate(table)
    first = recall(client, {"latest": True}, monkeypatch)
    assert shown(first) == "NOT_INTACT UNVERIFIED_TAMPER_RISK NOT_NEWEST", first.reason
    assert first.reason.startswith(
        f"rollback: seq 1 now holds record {heads.RECORDS[1]['recordHash'][:16]}…, but this client saw residual r-1"
    ), first.reason
    assert store.load_seen_seals(KEY) == []
    assert shown(recall(client, {"latest": True}, monkeypatch)) == "TRIAGED VERIFIED_INTACT PROVEN"


def test_a_wait_for_a_write_rewound_after_it_was_seen_sealed_raises_a_rollback_not_a_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = MemoryCheckpointStore()
    client, table = reader(awaiting(), store, monkeypatch)
    client.wait_for_outcome(PUBLISHED, timeout_s=0)
    rewind(table)
    with pytest.raises(
        LogVerificationError, match="UNVERIFIED_TAMPER_RISK: rollback: residual residual-1 reads absent"
    ):
        client.wait_for_outcome(PUBLISHED, timeout_s=0)
    cold, _ = reader(list(table.items.values()), MemoryCheckpointStore(), monkeypatch)
    with pytest.raises(WaitTimeoutError):
        cold.wait_for_outcome(PUBLISHED, timeout_s=0)
