"""The online client's configuration, offline: the stack pin file (the TypeScript ``reseal pin``
format, read strictly) and writer key files (made once, mode 0600, read back)."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

import reseal
from reseal.witness import Ed25519Cosigner, format_cosigner_key

LOG = "reseal/test-stack"


def pin_document() -> dict[str, Any]:
    log_key = reseal.Ed25519NoteSigner(LOG, bytes(range(32))).verifier_key
    guard_key = reseal.Ed25519NoteSigner(f"{LOG}/guard", bytes(range(1, 33))).verifier_key
    sealer_key = reseal.Ed25519NoteSigner(f"{LOG}/sealer", bytes(range(2, 34))).verifier_key
    return {
        "formatVersion": 2,
        "stackName": "test-stack",
        "outputs": {
            "tableName": "t",
            "residualWritesQueueUrl": "http://127.0.0.1/q",
            "eventBusName": "b",
            "macKeyArn": "arn:mac",
            "logKeyArn": "arn:log",
            "guardKeyArn": "arn:guard",
            "sealerKeyArn": "arn:sealer",
            "logName": LOG,
        },
        "logKey": reseal.format_verifier_key(log_key),
        "guardKey": reseal.format_verifier_key(guard_key),
        "sealerKey": reseal.format_verifier_key(sealer_key),
    }


def write(tmp_path: Path, document: Any) -> Path:
    path = tmp_path / "stack.json"
    path.write_text(json.dumps(document), "utf-8")
    return path


def test_a_stack_pin_is_read_with_the_three_keys(tmp_path: Path) -> None:
    pinned = reseal.read_stack_pin(write(tmp_path, pin_document()))
    assert pinned.outputs.log_name == LOG and pinned.outputs.table_name == "t"
    assert pinned.outputs.sealer_key_arn == "arn:sealer"
    assert pinned.log_key.name == LOG and pinned.guard_key.name == f"{LOG}/guard"
    assert pinned.sealer_key.name == f"{LOG}/sealer"


def test_a_stack_pin_stating_the_stacks_integration_interval_is_read(tmp_path: Path) -> None:
    # `reseal pin` of a stack that outputs IntegrationIntervalSeconds writes it (docs/cli.md,
    # "Pinning the stack"); a pin of an older stack has none, and both are read.
    document = pin_document()
    document["outputs"]["integrationIntervalSeconds"] = 10
    pinned = reseal.read_stack_pin(write(tmp_path, document))
    assert pinned.outputs.log_name == LOG and pinned.outputs.integration_interval_seconds == 10
    assert reseal.read_stack_pin(write(tmp_path, pin_document())).outputs.integration_interval_seconds is None


def client_of(stack: reseal.PinnedStack, policy: Any = None) -> reseal.ResealClient:
    return reseal.ResealClient(stack, dynamodb=object(), sqs=None, events=None, policy=policy)


def test_the_client_states_its_window_with_the_stacks_own_interval(tmp_path: Path) -> None:
    # docs/deployment-log.md, "Freshness window and interval": the window is maximum age + the
    # stack's interval; a policy read with the default 2 s would overstate a 10 s stack's freshness.
    document = pin_document()
    document["outputs"]["integrationIntervalSeconds"] = 10
    pinned = reseal.read_stack_pin(write(tmp_path, document))
    assert client_of(pinned).policy.interval_seconds == 10
    witness = Ed25519Cosigner("witness.example/w1", bytes(range(3, 35)))
    witnessed = reseal.freshness_policy(
        reseal.default_policy_text(pinned.log_key, (format_cosigner_key(witness.key), "https://w.example/")),
        max_age_seconds=60,
    )
    rebuilt = client_of(pinned, witnessed).policy
    assert (rebuilt.interval_seconds, rebuilt.max_age_seconds, rebuilt.window_seconds) == (10, 60, 70)
    assert rebuilt.text == witnessed.text
    # A stack deployed before the output: the policy as given (the default 2 s).
    older = reseal.read_stack_pin(write(tmp_path, pin_document()))
    assert client_of(older, witnessed).policy.window_seconds == 62
    assert client_of(older).policy.interval_seconds == 2


class _Stacks:
    def __init__(self, extra: dict[str, str]) -> None:
        self.outputs = {
            "TableName": "t",
            "ResidualWritesQueueUrl": "http://127.0.0.1/q",
            "EventBusName": "b",
            "MacKeyArn": "arn:mac",
            "LogKeyArn": "arn:log",
            "GuardKeyArn": "arn:guard",
            "SealerKeyArn": "arn:sealer",
            "LogName": LOG,
            **extra,
        }

    def describe_stacks(self, StackName: str) -> dict[str, Any]:
        return {"Stacks": [{"Outputs": [{"OutputKey": k, "OutputValue": v} for k, v in self.outputs.items()]}]}


class _Kms:
    def get_public_key(self, KeyId: str) -> dict[str, Any]:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        key = Ed25519PrivateKey.from_private_bytes(bytes(32)).public_key()
        return {
            "KeySpec": "ECC_NIST_EDWARDS25519",
            "PublicKey": key.public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo),
        }


def test_the_stacks_interval_is_read_from_its_outputs_and_a_malformed_one_is_refused() -> None:
    stack = reseal.stack_from_cloudformation("test-stack", _Stacks({"IntegrationIntervalSeconds": "10"}), _Kms())
    assert stack.outputs.integration_interval_seconds == 10
    assert (
        reseal.stack_from_cloudformation("test-stack", _Stacks({}), _Kms()).outputs.integration_interval_seconds is None
    )
    for bad in ("0", "301", "0x10", "1e1", "2.5", "", "١٠"):
        with pytest.raises(reseal.StackConfigError, match="IntegrationIntervalSeconds"):
            reseal.stack_from_cloudformation("test-stack", _Stacks({"IntegrationIntervalSeconds": bad}), _Kms())


def test_a_stack_pin_of_a_stack_with_tenants_keeps_each_tenants_queue(tmp_path: Path) -> None:
    # docs/authorship.md, "Tenancy": `reseal pin` of a stack with tenants writes its TenantQueueUrls.
    document = pin_document()
    document["outputs"]["tenantQueueUrls"] = {"acme": "https://sqs.example/acme"}
    pinned = reseal.read_stack_pin(write(tmp_path, document))
    assert pinned.outputs.tenant_queue_urls == {"acme": "https://sqs.example/acme"}
    assert reseal.read_stack_pin(write(tmp_path, pin_document())).outputs.tenant_queue_urls is None


@pytest.mark.parametrize(
    ("edit", "path"),
    [
        (lambda d: d.update(extra=1), ""),
        (lambda d: d["outputs"].pop("tableName"), "outputs.tableName"),
        (lambda d: d.update(logKey=d["guardKey"]), "logKey"),
        (lambda d: d.update(guardKey="not a key"), "guardKey"),
        (lambda d: d.update(sealerKey=d["guardKey"]), "sealerKey"),
        (lambda d: d.update(guardKey=d["sealerKey"]), "guardKey"),
        (lambda d: d.pop("sealerKey"), "sealerKey"),
        (lambda d: d["outputs"].pop("sealerKeyArn"), "outputs.sealerKeyArn"),
        (lambda d: d.update(formatVersion=3), "formatVersion"),
        (lambda d: d["outputs"].update(tenantQueueUrls={}), "outputs.tenantQueueUrls"),
        (lambda d: d["outputs"].update(tenantQueueUrls={"Acme Corp": "u"}), "outputs.tenantQueueUrls.Acme Corp"),
        (lambda d: d["outputs"].update(integrationIntervalSeconds=0), "outputs.integrationIntervalSeconds"),
        (lambda d: d["outputs"].update(integrationIntervalSeconds="10"), "outputs.integrationIntervalSeconds"),
        (lambda d: d["outputs"].update(integrationIntervalSeconds=2.5), "outputs.integrationIntervalSeconds"),
    ],
)
def test_a_malformed_stack_pin_is_refused_naming_the_field(tmp_path: Path, edit: Any, path: str) -> None:
    document = pin_document()
    edit(document)
    with pytest.raises(reseal.InvalidInputError) as raised:
        reseal.read_stack_pin(write(tmp_path, document))
    assert path in [issue.path for issue in raised.value.issues]


def test_a_format_1_stack_pin_has_no_sealer_key_and_is_refused_telling_to_pin_again(tmp_path: Path) -> None:
    document = pin_document()
    document["formatVersion"] = 1
    document.pop("sealerKey")
    document["outputs"].pop("sealerKeyArn")
    with pytest.raises(reseal.InvalidInputError) as raised:
        reseal.read_stack_pin(write(tmp_path, document))
    assert ("formatVersion", "format 1 pins no sealer key: run `reseal pin` again") in [
        (i.path, i.message) for i in raised.value.issues
    ]


def test_a_missing_stack_pin_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(reseal.StackConfigError, match="cannot read the stack pin"):
        reseal.read_stack_pin(tmp_path / "none.json")


def test_a_writer_key_file_is_made_once_and_signs_as_the_guard_checks(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "agent-7.pem"
    made = reseal.WriterKey.from_file(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = reseal.WriterKey.from_file(path)
    assert (again.key_id, again.public_key) == ("agent-7", made.public_key)
    lineage = reseal.lineage_id_for("agent-7", made.policy())
    request = reseal.write_request(
        residual_id="r-1",
        lineage_id=lineage,
        session_id="s-1",
        generation_epoch=1,
        payload={"n": 1},
        boundary_at_ms=1_000,
        manifest={"env": {"A": "1"}, "structuralKeys": [], "claimDependencyMap": {"a": ["A"]}},
        policy=made.policy(),
    )
    signed = made.sign_request(request, 2_000)
    parsed = reseal.parse_write_request(signed)
    assert reseal.write_signature_problem(parsed, 2_000) is None
    signed["payload"] = {"n": 2}
    assert reseal.write_signature_problem(reseal.parse_write_request(signed), 2_000) is not None


def test_a_writer_key_file_that_is_no_ed25519_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.pem"
    path.write_text("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
    with pytest.raises(reseal.InvalidInputError, match="writer key"):
        reseal.WriterKey.from_file(path)


def _connect_with(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, env: dict[str, str]) -> reseal.ResealClient:
    """``reseal.connect`` from a pin file with only ``env`` for the region: no profile, no config file."""
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_DEFAULT_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return reseal.connect(pin=write(tmp_path, pin_document()), checkpoints=None)


def test_connect_takes_the_region_from_aws_region_alone(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # docs/python.md, "The online loop": the README's AWS_REGION is enough (boto3 reads only AWS_DEFAULT_REGION).
    client = _connect_with(monkeypatch, tmp_path, {"AWS_REGION": "eu-west-2"})
    assert client._sqs.meta.region_name == "eu-west-2"
    assert client._events.meta.region_name == "eu-west-2"
    assert client.table._client.meta.region_name == "eu-west-2"


def test_connect_prefers_aws_default_region_as_boto3_does(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    both = {"AWS_REGION": "eu-west-2", "AWS_DEFAULT_REGION": "ap-south-1"}
    assert _connect_with(monkeypatch, tmp_path, both)._sqs.meta.region_name == "ap-south-1"
    default_only = {"AWS_DEFAULT_REGION": "ap-south-1", "AWS_REGION": ""}
    assert _connect_with(monkeypatch, tmp_path, default_only)._sqs.meta.region_name == "ap-south-1"
