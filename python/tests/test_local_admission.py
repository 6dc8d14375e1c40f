"""A publish's admission check reads the lineage's head item alone (docs/authorship.md, "Two
refusals, in order"; docs/pipeline.md, "Learning the outcome of a write"), however long the lineage."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from test_tenancy import STACK

from reseal import InvalidInputError, write_request
from reseal.canonical import canonical_json
from reseal.client import ResealClient
from reseal.records import record_hash_of
from reseal.writer_key import WriterKey

VECTORS = json.loads((Path(__file__).parents[2] / "test" / "vectors" / "authorship.json").read_text())
LINEAGE = VECTORS["lineageId"]
INCEPTION = VECTORS["chain"][0]["record"]
POLICY = INCEPTION["policy"]
SEQ = 999
FRONTIER = [f"{i:064x}" for i in range(bin(SEQ).count("1"))]
NOW_MS = 1_800_000_000_000


def key(name: str) -> WriterKey:
    k = VECTORS["keys"][name]
    return WriterKey(k["keyId"], Ed25519PrivateKey.from_private_bytes(bytes.fromhex(k["seedHex"])))


def small_head(policy: Any = POLICY) -> dict[str, Any]:
    """A small head item of a lineage of 1,000 records (docs/sealing.md, "The append's layout")."""
    item: dict[str, Any] = {
        "pk": {"S": f"LINEAGE#{LINEAGE}"},
        "sk": {"S": "HEAD"},
        "seq": {"N": str(SEQ)},
        "recordHash": {"S": "ab" * 32},
        "generationEpoch": {"N": "2"},
        "headMac": {"S": canonical_json({"keyId": "k", "algorithm": "HMAC_SHA_256", "mac": "AA=="})},
        "frontier": {"B": b"".join(bytes.fromhex(h) for h in FRONTIER)},
    }
    if policy is not None:
        item["policy"] = {"S": canonical_json(policy)}
    return item


def compatible_head(policy: Any = POLICY, header: dict[str, Any] | None = None) -> dict[str, Any]:
    """The head item as stored before the small head: the tip header copy and a JSON frontier."""
    tip = header or {**INCEPTION["header"], "monotonicSequenceNumber": SEQ}
    item = {
        **small_head(policy),
        "recordHash": {"S": record_hash_of(tip)},
        "generationEpoch": {"N": str(tip["generationEpoch"])},
        "header": {"S": canonical_json(tip)},
        "frontier": {"S": json.dumps(FRONTIER)},
    }
    del item["headMac"]
    return item


class Table:
    """A DynamoDB stand-in holding one head item, counting every call."""

    def __init__(self, head: dict[str, Any] | None, first_record: dict[str, Any] | None = None) -> None:
        self.head = head
        self.first_record = first_record
        self.calls: list[tuple[str, bool]] = []

    def get_item(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(("get_item", kwargs.get("ConsistentRead") is True))
        if kwargs["Key"]["sk"] == {"S": f"RECORD#{0:016d}"}:
            return {} if self.first_record is None else {"Item": self.first_record}
        assert kwargs["Key"]["sk"] == {"S": "HEAD"}, "only the head item (and record 0, without one) is read"
        return {} if self.head is None else {"Item": self.head}

    def __getattr__(self, name: str) -> Any:
        def call(**_kwargs: Any) -> Any:
            self.calls.append((name, False))
            raise AssertionError(f"{name} called: admission reads the head item alone")

        return call


class Sqs:
    def __init__(self) -> None:
        self.sent = 0

    def send_message(self, **_kwargs: Any) -> dict[str, Any]:
        self.sent += 1
        return {"MessageId": f"m-{self.sent}"}


def publish(
    head: dict[str, Any] | None, signer: str, policy: Any = None, first_record: dict[str, Any] | None = None
) -> tuple[str | None, Table]:
    """Publishes a write signed by ``signer`` over a table holding ``head`` (and ``first_record`` at
    seq 0): ``None`` when sent, else why refused."""
    table, sqs = Table(head, first_record), Sqs()
    client = ResealClient(
        STACK, dynamodb=table, sqs=sqs, events=None, writer=key(signer), freshness=False, now_ms=lambda: NOW_MS
    )
    request = write_request(
        residual_id="r-next",
        lineage_id=LINEAGE,
        session_id="s-1",
        generation_epoch=2,
        payload={"n": 1},
        boundary_at_ms=NOW_MS - 1_000,
        manifest={"env": {"A": "1"}, "structuralKeys": [], "claimDependencyMap": {"a": ["A"]}},
        **({"policy": policy} if policy is not None else {}),
    )
    try:
        client.publish(request)
    except InvalidInputError as refused:
        assert sqs.sent == 0
        return str(refused), table
    assert sqs.sent == 1
    return None, table


NOT_ADMITTED = "is not admitted: the writer key is not admitted to this lineage"


@pytest.mark.parametrize("head", [small_head, compatible_head], ids=["small", "compatible"])
def test_a_lineage_of_1000_records_admission_reads_the_head_item_alone(head: Any) -> None:
    sent, table = publish(head(), "writer")
    assert sent is None
    assert table.calls == [("get_item", True)]
    refused, table = publish(head(), "stranger")
    assert refused is not None and NOT_ADMITTED in refused
    assert table.calls == [("get_item", True)]
    rotated = {**POLICY, "recoveryKeys": []}
    refused, _ = publish(head(), "writer", rotated)
    assert refused is not None and "a writer may not change the recovery keys" in refused


def test_no_head_the_inception_rules() -> None:
    refused, table = publish(None, "writer")
    assert refused is not None and "must set its write policy" in refused
    # The refusal looked for a record 0 (none, eventually consistent then strongly): no lineage.
    assert table.calls == [("get_item", True), ("get_item", False), ("get_item", True)]
    sent, _ = publish(None, "writer", POLICY)
    assert sent is None


def test_records_but_no_head_item_no_inception_refusal_the_sealer_decides() -> None:
    """A head never put, deleted or made unreadable by a table writer: the lineage exists."""
    record = {"pk": {"S": f"LINEAGE#{LINEAGE}"}, "sk": {"S": f"RECORD#{0:016d}"}}
    for head in (None, {**small_head(), "seq": {"S": "not a number"}}):
        sent, _ = publish(head, "stranger", first_record=record)
        assert sent is None


def test_a_format_1_tip_header_is_refused_as_a_legacy_lineage() -> None:
    tip = {
        k: v
        for k, v in {**INCEPTION["header"], "monotonicSequenceNumber": SEQ, "formatVersion": 1}.items()
        if k not in ("writerDigest", "boundaryDigest", "policyDigest")
    }
    refused, _ = publish(compatible_head(None, tip), "writer")
    assert refused is not None and "the lineage ends in a format-1 record" in refused


@pytest.mark.parametrize(
    "head",
    [
        lambda: compatible_head(None),  # stored before heads carried the policy
        lambda: small_head(None),  # a small head without a policy
        lambda: {**small_head(), "frontier": {"B": b"\x00" * 3}},  # malformed
    ],
    ids=["old-head", "small-without-policy", "malformed"],
)
def test_a_head_that_cannot_tell_passes_and_reads_nothing_else(head: Any) -> None:
    sent, table = publish(head(), "stranger")
    assert sent is None
    assert table.calls == [("get_item", True)]


def test_a_head_policy_its_header_does_not_name_refuses_no_one() -> None:
    stranger = VECTORS["keys"]["stranger"]
    forged = {**POLICY, "writers": [{"keyId": stranger["keyId"], "publicKey": stranger["publicKey"]}]}
    sent, _ = publish(compatible_head(forged), "writer")
    assert sent is None
