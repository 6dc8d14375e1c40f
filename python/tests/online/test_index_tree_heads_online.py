"""Lineage tree heads from the index on the deployed stack (docs/deployment-log.md, "Clients";
docs/python.md, "Tree heads from the index"): after real writes and their integration, the head
item's signed ``checkpoint`` is removed, as a head the sealer no longer signs carries none. The
Python client then proves the records in the lineage head the index holds, builds format-2
receipts that the TypeScript CLI verifies (``reseal verify --receipt --policy``), verifies the
receipts the CLI exports, and sees a rollback below the indexed head as ``NOT_NEWEST``."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from table_writer import TableWriter

import reseal
from reseal.item_layout import LineageKeys


def proven_write(
    client: reseal.ResealClient, lineage: str, residual: str, supersedes: Any = None
) -> reseal.WriteOutcome:
    request = reseal.write_request(
        residual_id=residual,
        lineage_id=lineage,
        session_id="s-1",
        generation_epoch=1,
        payload={"note": residual},
        boundary_at_ms=int(time.time() * 1000) - 1000,
        manifest={"env": {"DB_HOST": "db-1"}, "structuralKeys": [], "claimDependencyMap": {"db": ["DB_HOST"]}},
        supersedes=supersedes,
    )
    outcome = client.wait_for_outcome(client.publish(request), timeout_s=240, until_proven=True)
    assert outcome.freshness is not None and outcome.freshness.state == "PROVEN", outcome.freshness
    return outcome


def without_checkpoint(head: dict[str, Any]) -> dict[str, Any]:
    # The deployed sealer signs none (docs/deployment-log.md, "What changes for the sealer", step 3).
    return {k: v for k, v in head.items() if k != "checkpoint"}


def test_a_head_without_a_signed_checkpoint_is_read_through_the_index(in_tmp: Path) -> None:
    client = reseal.connect(writer_key=".reseal/h.pem", checkpoints=None)
    assert client.writer is not None
    lineage = reseal.lineage_id_for("index-head", client.writer.policy())
    first = proven_write(client, lineage, "r-1")
    table = TableWriter(client)
    head_at_one = without_checkpoint(table.head(lineage))
    assert first.record is not None
    second = proven_write(client, lineage, "r-2", {"seq": 0, "recordHash": first.record["recordHash"]})
    assert second.receipt()["formatVersion"] == 2  # the outcome's receipt is format 2 by default
    table.dynamodb.put_item(TableName=table.table, Item=without_checkpoint(table.head(lineage)))

    records, head = client.proven_records(lineage)
    assert [r["header"]["residualId"] for r in records] == ["r-1", "r-2"]
    assert head is not None and head.note is None and head.size == 2
    latest = client.latest_checkpoint(lineage)
    assert latest is not None and latest.note is None and latest.size == 2

    # A receipt the Python client builds, verified by the TypeScript CLI offline with the stack's policy.
    receipt = client.receipt(lineage, 1)
    assert receipt["formatVersion"] == 2 and receipt["index"]["lineage"]["value"]["treeSize"] == 2
    (in_tmp / "python-receipt.json").write_text(json.dumps(receipt))
    (in_tmp / "policy.txt").write_text(reseal.default_policy_text(client.stack.log_key))
    verified = run_cli(["verify", "--receipt", "python-receipt.json", "--policy", "policy.txt", "--json"], in_tmp)
    assert verified.returncode == 0, f"{verified.stdout}\n{verified.stderr}"
    assert json.loads(verified.stdout)["verdict"] == "VERIFIED_INTACT", verified.stdout
    # The CLI's own export of the same lineage, now headless of a signed checkpoint, verified here.
    exported = run_cli(["export", "--lineage", lineage, "--receipt", "--seq", "0", "--out", "cli-receipt.json"], in_tmp)
    assert exported.returncode == 0, f"{exported.stdout}\n{exported.stderr}"
    checked = reseal.verify_receipt(
        (in_tmp / "cli-receipt.json").read_bytes(), policy=(in_tmp / "policy.txt").read_text()
    )
    assert (checked.verdict, checked.format_version) == ("VERIFIED_INTACT", 2), checked.reason
    with pytest.raises(reseal.InvalidInputError, match="format 1"):
        client.receipt(lineage, 1, format_version=1)

    # The table writer rolls the lineage back to one record: no signature to forge, only the index tells.
    table.dynamodb.delete_item(
        TableName=table.table,
        Key={"pk": {"S": LineageKeys.lineage(lineage)}, "sk": {"S": LineageKeys.record(1)}},
    )
    table.dynamodb.put_item(TableName=table.table, Item=head_at_one)
    with pytest.raises(reseal.LogVerificationError) as raised:
        client.proven_records(lineage)
    assert raised.value.verdict == reseal.VerificationVerdict.UNVERIFIED_TAMPER_RISK
    assert raised.value.reason.startswith("NOT_NEWEST"), raised.value.reason


def test_a_receipt_the_cli_exported_verifies_here_and_one_built_here_verifies_in_the_cli(
    cli_receipt: dict[str, Any], tmp_path: Path, deployed: dict[str, Any]
) -> None:
    checked = reseal.verify_receipt(cli_receipt["path"].read_bytes(), policy=cli_receipt["policy"])
    assert (checked.verdict, checked.format_version) == ("VERIFIED_INTACT", 2), checked.reason
    assert checked.record is not None and checked.record["recordHash"] == cli_receipt["record"]["recordHash"]
    client = reseal.connect(pin=deployed["pin"], checkpoints=None)
    built = client.receipt(cli_receipt["lineage"], 0)
    assert built == json.loads(cli_receipt["path"].read_text()) or built["record"] is not None
    (tmp_path / "r.json").write_text(json.dumps(built))
    (tmp_path / "policy.txt").write_text(cli_receipt["policy"])
    verified = run_cli(["verify", "--receipt", "r.json", "--policy", "policy.txt", "--json"], tmp_path)
    assert verified.returncode == 0 and json.loads(verified.stdout)["verdict"] == "VERIFIED_INTACT", verified.stdout
    # An edited copy is refused by the CLI too.
    built["record"]["payload"] = {"note": "edited"}
    (tmp_path / "r.json").write_text(json.dumps(built))
    refused = run_cli(["verify", "--receipt", "r.json", "--policy", "policy.txt", "--json"], tmp_path)
    assert refused.returncode == 20 and json.loads(refused.stdout)["verdict"] == "HASH_MISMATCH", refused.stdout
