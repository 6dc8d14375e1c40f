"""The online client against the deployed stack on the emulator: the documented loop as written,
and a table writer's edit (docs/sealing.md, threat model), which the client must refuse."""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import re
import time
from pathlib import Path

import boto3
import pytest
from table_writer import record_text

import reseal
from reseal.item_layout import LineageKeys

REPO = Path(__file__).resolve().parents[3]


def online_example() -> str:
    text = (REPO / "docs" / "python.md").read_text("utf-8")
    section = text.split("## The online loop", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match, "docs/python.md has no python block under 'The online loop'"
    return match.group(1)


def test_the_documented_online_loop_runs_as_written_in_at_most_15_lines(in_tmp: Path) -> None:
    code = online_example()
    lines = [line for line in code.splitlines() if line.strip() and not line.strip().startswith("#")]
    assert len(lines) <= 15, f"the documented loop is {len(lines)} lines"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/python.md", "exec"), {})
    # DB_HOST changed, so the claim resting on it is invalidated by the delta computed here.
    assert out.getvalue().startswith("TRIAGED "), out.getvalue()
    assert (in_tmp / ".reseal" / "agent-7.pem").stat().st_mode & 0o777 == 0o600


def sealed_write(
    client: reseal.ResealClient, label: str, env: dict[str, str] | None = None
) -> tuple[str, reseal.WriteOutcome]:
    assert client.writer is not None
    lineage = reseal.lineage_id_for(label, client.writer.policy())
    env = env or {"DB_HOST": "db-1"}
    request = reseal.write_request(
        residual_id="r-1",
        lineage_id=lineage,
        session_id="s-1",
        generation_epoch=1,
        payload={"note": "db is postgres 16"},
        boundary_at_ms=int(time.time() * 1000) - 1000,
        manifest={"env": env, "structuralKeys": [], "claimDependencyMap": {"db": ["DB_HOST"]}},
    )
    # Until proven: the receipts asked of it below are format 2, which need the record integrated.
    outcome = client.wait_for_outcome(client.publish(request), timeout_s=120, until_proven=True)
    assert outcome.kind == "SEALED", outcome.refusal
    return lineage, outcome


def test_a_record_the_table_writer_edits_is_never_proven(in_tmp: Path) -> None:
    """Depends on the inclusion check (verify_record_proof against the signed checkpoint)."""
    client = reseal.connect(writer_key=".reseal/w.pem")
    lineage, outcome = sealed_write(client, "tamper")
    assert outcome.seq == 0
    table = client.stack.outputs.table_name
    dynamodb = boto3.client("dynamodb", endpoint_url=os.environ["AWS_ENDPOINT_URL"])
    key = {"pk": {"S": LineageKeys.lineage(lineage)}, "sk": {"S": LineageKeys.record(0)}}
    stored = record_text(dynamodb.get_item(TableName=table, Key=key, ConsistentRead=True)["Item"])
    edited = stored.replace("postgres 16", "postgres 17")
    assert edited != stored
    dynamodb.update_item(
        TableName=table,
        Key=key,
        UpdateExpression="SET #r = :r",
        ExpressionAttributeNames={"#r": "record"},
        ExpressionAttributeValues={":r": {"S": edited}},
    )
    with pytest.raises(reseal.LogVerificationError) as raised:
        client.receipt(lineage, 0)
    assert raised.value.verdict == reseal.VerificationVerdict.HASH_MISMATCH
    recall = client.recall(lineage, {"DB_HOST": "db-1"})
    assert recall.end == "NOT_INTACT" and recall.record is None and recall.delta is None
    assert recall.verdict != reseal.VerificationVerdict.VERIFIED_INTACT


@pytest.mark.parametrize("tamper", ["edited", "deleted"])
def test_a_record_whose_manifest_item_the_table_writer_edits_or_deletes_is_never_proven(
    in_tmp: Path, tamper: str
) -> None:
    """The manifest is stored once per lineage, gzipped, in MANIFEST#<lineageId>#<manifestDigest>
    (docs/sealing.md, "Stored items"); the reader puts it back and the record's hash check catches an
    edited or missing one."""
    client = reseal.connect(writer_key=".reseal/w.pem")
    # A manifest of its own (DB_HOST unique to this test), so no other record shares the item.
    lineage, outcome = sealed_write(client, f"manifest-{tamper}", {"DB_HOST": f"db-{tamper}-{time.time_ns()}"})
    assert client.receipt(lineage, 0) is not None  # read back intact through the manifest item first
    table = client.stack.outputs.table_name
    dynamodb = boto3.client("dynamodb", endpoint_url=os.environ["AWS_ENDPOINT_URL"])
    record_key = {"pk": {"S": LineageKeys.lineage(lineage)}, "sk": {"S": LineageKeys.record(0)}}
    stored = record_text(dynamodb.get_item(TableName=table, Key=record_key, ConsistentRead=True)["Item"])
    assert '"manifest"' not in stored  # the record item holds no manifest of its own
    digest = json.loads(stored)["header"]["manifestDigest"]
    key = {"pk": {"S": LineageKeys.manifest(lineage, digest)}, "sk": {"S": LineageKeys.MANIFEST_SK}}
    item = dynamodb.get_item(TableName=table, Key=key, ConsistentRead=True)["Item"]
    manifest = json.loads(gzip.decompress(item["manifest"]["B"]))
    assert outcome.record is not None and manifest == outcome.record["manifest"]
    if tamper == "edited":  # a well-formed manifest, one baseline hash changed: only the digest tells
        name = next(iter(manifest["baselineKeyHashes"]))
        manifest["baselineKeyHashes"][name] = "0" * 64
        dynamodb.put_item(
            TableName=table, Item={**item, "manifest": {"B": gzip.compress(json.dumps(manifest).encode())}}
        )
    else:
        dynamodb.delete_item(TableName=table, Key=key)
    # The client that read it keeps the manifest it showed to hash to the record's digest (64 per
    # client, docs/pipeline.md, "Learning the outcome of a write"): the record it proves is the one
    # sealed. A client reading the table as it stands now gets the edited or missing item.
    assert client.receipt(lineage, 0)["record"] == outcome.record
    client = reseal.connect(writer_key=".reseal/w.pem")
    with pytest.raises(reseal.LogVerificationError) as raised:
        client.receipt(lineage, 0)
    assert raised.value.verdict == reseal.VerificationVerdict.HASH_MISMATCH
    recall = client.recall(lineage, {"DB_HOST": "db-1"})
    assert recall.end == "NOT_INTACT" and recall.record is None and recall.delta is None
    assert recall.verdict != reseal.VerificationVerdict.VERIFIED_INTACT


def test_a_rolled_back_head_is_refused_against_the_index(in_tmp: Path) -> None:
    """Depends on the index holding the larger tree head (_indexed_head)."""
    client = reseal.connect(writer_key=".reseal/r.pem")
    lineage, first = sealed_write(client, "rollback")
    kept_head = boto3.client("dynamodb", endpoint_url=os.environ["AWS_ENDPOINT_URL"]).get_item(
        TableName=client.stack.outputs.table_name,
        Key={"pk": {"S": LineageKeys.lineage(lineage)}, "sk": {"S": LineageKeys.HEAD}},
        ConsistentRead=True,
    )["Item"]
    assert client.writer is not None and first.record is not None
    second = reseal.write_request(
        residual_id="r-2",
        lineage_id=lineage,
        session_id="s-1",
        generation_epoch=1,
        payload={"note": "second"},
        boundary_at_ms=int(time.time() * 1000) - 1000,
        manifest={"env": {"A": "1"}, "structuralKeys": [], "claimDependencyMap": {"a": ["A"]}},
        supersedes={"seq": 0, "recordHash": first.record["recordHash"]},
    )
    # Proven: the index holds the tree head of 2 records before the rollback.
    assert client.wait_for_outcome(client.publish(second), timeout_s=240, until_proven=True).seq == 1
    assert client.latest_checkpoint(lineage) is not None
    dynamodb = boto3.client("dynamodb", endpoint_url=os.environ["AWS_ENDPOINT_URL"])
    table = client.stack.outputs.table_name
    dynamodb.delete_item(
        TableName=table, Key={"pk": {"S": LineageKeys.lineage(lineage)}, "sk": {"S": LineageKeys.record(1)}}
    )
    dynamodb.put_item(TableName=table, Item=kept_head)  # the head of one record, validly signed
    with pytest.raises(reseal.LogVerificationError) as raised:
        client.latest_checkpoint(lineage)
    # The head carries no signed checkpoint to keep (docs/deployment-log.md, "What changes for the
    # sealer", step 3): the index, holding the larger tree head, refuses the rolled-back one (NOT_NEWEST).
    assert raised.value.verdict == reseal.VerificationVerdict.UNVERIFIED_TAMPER_RISK
    assert "NOT_NEWEST" in raised.value.reason
