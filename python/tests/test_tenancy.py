"""A client given its tenant (docs/authorship.md, "Tenancy", "Refused at the caller"; docs/triage.md,
"Tenants"): its recalls carry the tenant's source, and a write, a wait or a recall naming another
tenant's lineage raises TenantMismatchError (``TENANT_MISMATCH``) before anything is read, signed or sent."""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from test_deployment_chain_reader import SIGNER

from reseal import InvalidInputError, TenantMismatchError, TenantRequiredError, recall_source_of
from reseal.client import PublishedWrite, ResealClient
from reseal.stack import PinnedStack, StackOutputs
from reseal.writer_key import WriterKey

WRITER = WriterKey("acme-writer", Ed25519PrivateKey.generate())
STACK = PinnedStack(
    "test-stack",
    StackOutputs("t", "queue", "bus", "mac", "log", "guard", "sealer", "reseal/test-stack"),
    SIGNER.verifier_key,
    SIGNER.verifier_key,
    SIGNER.verifier_key,
)


class Refuses:
    """A boto3 client (and table) stand-in that fails the test on any call."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        def call(*_args: Any, **_kwargs: Any) -> Any:
            self.calls.append(name)
            raise AssertionError(f"{name} called: nothing may be read or sent")

        return call


class Events:
    """EventBridge that records each entry, then stops the recall (what follows is not under test)."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []

    def put_events(self, Entries: list[dict[str, Any]]) -> dict[str, Any]:
        self.entries.extend(Entries)
        raise StopRecall


class StopRecall(Exception):
    pass


def tenant_client(tenant_id: str | None, *, events: Any = None) -> tuple[ResealClient, Refuses, Refuses]:
    table, sqs = Refuses(), Refuses()
    client = ResealClient(
        STACK,
        dynamodb=table,
        sqs=sqs,
        events=events if events is not None else Refuses(),
        writer=WRITER,
        freshness=False,
        tenant_id=tenant_id,
    )
    return client, table, sqs


def test_the_recall_source_of_a_tenant() -> None:
    assert recall_source_of("acme") == "reseal.tenant.acme"
    assert recall_source_of(None) == "reseal"


def test_a_write_into_another_tenants_lineage_is_tenant_mismatch_and_nothing_is_read_signed_or_sent() -> None:
    client, table, sqs = tenant_client("acme")
    with pytest.raises(TenantMismatchError) as raised:
        client.publish({"lineageId": "beta/agent-1", "residualId": "r-1"})
    assert (raised.value.code, raised.value.lineage_id, raised.value.tenant_id) == (
        "TENANT_MISMATCH",
        "beta/agent-1",
        "acme",
    )
    assert str(raised.value).startswith("TENANT_MISMATCH: lineage beta/agent-1 is not of tenant acme")
    published = PublishedWrite("m-1", 0, {"lineageId": "beta/agent-1", "residualId": "r-1"})
    with pytest.raises(TenantMismatchError):
        client.wait_for_outcome(published, timeout_s=0)
    assert table.calls == [] and sqs.calls == []


def test_a_recall_of_another_tenants_lineage_is_tenant_mismatch_and_nothing_is_put() -> None:
    events = Refuses()
    client, table, _ = tenant_client("acme", events=events)
    with pytest.raises(TenantMismatchError):
        client.recall("beta/agent-1", {})
    assert events.calls == [] and table.calls == []


def test_a_recall_of_the_tenants_own_lineage_is_put_under_its_source(monkeypatch: pytest.MonkeyPatch) -> None:
    events = Events()
    client, _, _ = tenant_client("acme", events=events)
    monkeypatch.setattr(client, "_latest", lambda _lineage, _trusted, _chain=None: None)
    with pytest.raises(StopRecall):
        client.recall("acme/agent-1", {})
    assert [e["Source"] for e in events.entries] == ["reseal.tenant.acme"]


def test_without_a_tenant_recalls_go_under_reseal(monkeypatch: pytest.MonkeyPatch) -> None:
    events = Events()
    client, _, _ = tenant_client(None, events=events)
    monkeypatch.setattr(client, "_latest", lambda _lineage, _trusted, _chain=None: None)
    with pytest.raises(StopRecall):
        client.recall("beta/agent-1", {})
    assert [e["Source"] for e in events.entries] == ["reseal"]


def test_a_tenant_id_that_is_not_one_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="tenant_id"):
        tenant_client("Acme Corp")


# docs/authorship.md, "Tenancy", "A caller of no tenant": a stack with tenants (its TenantQueueUrls
# output, kept in the stack pin) routes a tenant's writes to its queue and refuses a caller of no tenant.
TENANTED = PinnedStack(
    "test-stack",
    StackOutputs(
        "t",
        "queue",
        "bus",
        "mac",
        "log",
        "guard",
        "sealer",
        "reseal/test-stack",
        {"acme": "acme-queue", "beta": "beta-queue"},
    ),
    SIGNER.verifier_key,
    SIGNER.verifier_key,
    SIGNER.verifier_key,
)


def tenanted_client(tenant_id: str | None) -> tuple[ResealClient, Refuses, Refuses, Refuses]:
    table, sqs, events = Refuses(), Refuses(), Refuses()
    client = ResealClient(
        TENANTED, dynamodb=table, sqs=sqs, events=events, writer=WRITER, freshness=False, tenant_id=tenant_id
    )
    return client, table, sqs, events


@pytest.mark.parametrize("tenant_id", [None, "gamma"])
def test_a_caller_of_no_tenant_of_the_stack_is_refused_tenant_required_and_nothing_is_read_signed_or_sent(
    tenant_id: str | None,
) -> None:
    client, table, sqs, events = tenanted_client(tenant_id)
    lineage = f"{tenant_id or 'acme'}/agent-1"
    with pytest.raises(TenantRequiredError) as raised:
        client.publish({"lineageId": lineage, "residualId": "r-1"})
    assert (raised.value.code, raised.value.stack_tenants, raised.value.tenant_id) == (
        "TENANT_REQUIRED",
        ["acme", "beta"],
        tenant_id,
    )
    assert isinstance(raised.value, InvalidInputError) and "TENANT_REQUIRED" in str(raised.value)
    with pytest.raises(TenantRequiredError):
        client.recall(lineage, {})
    assert table.calls == [] and sqs.calls == [] and events.calls == []


def test_a_tenants_write_goes_to_its_tenants_queue(monkeypatch: pytest.MonkeyPatch) -> None:
    client, _, _, _ = tenanted_client("beta")
    assert client._write_queue_url() == "beta-queue"
    plain, _, _ = tenant_client(None)
    assert plain._write_queue_url() == "queue"
