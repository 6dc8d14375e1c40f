"""Where a deployed Reseal stack is: its outputs and its three verifier keys (log, guard, sealer),
from a stack pin file (docs/cli.md, "Pinning the stack") or from CloudFormation and KMS."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ._checks import Checker
from .errors import InvalidInputError, ResealError, StackConfigError
from .log import NoteVerifierKey, note_verifier_key, parse_verifier_key
from .strict_json import parse_strict_json
from .tenancy import TENANT_ID_PATTERN

__all__ = [
    "DEFAULT_STACK_NAME",
    "DEFAULT_STACK_PIN_PATH",
    "STACK_PIN_ENV",
    "PinnedStack",
    "StackOutputs",
    "STACK_PIN_FORMAT_VERSION",
    "guard_key_name",
    "sealer_key_name",
    "read_stack_pin",
    "stack_from_cloudformation",
]

DEFAULT_STACK_NAME: Final = "ResealStack"
DEFAULT_STACK_PIN_PATH: Final = ".reseal/stack.json"
"""Where ``reseal pin`` writes the pin, relative to the working directory."""
STACK_PIN_ENV: Final = "RESEAL_STACK_FILE"
"""Environment variable naming the pin file instead of :data:`DEFAULT_STACK_PIN_PATH`."""
STACK_PIN_FORMAT_VERSION: Final = 2
"""The stack pin's format: 2 added the sealer key (``sealerKey``, ``outputs.sealerKeyArn``)."""

_OUTPUTS: Final = {
    "tableName": "TableName",
    "residualWritesQueueUrl": "ResidualWritesQueueUrl",
    "eventBusName": "EventBusName",
    "macKeyArn": "MacKeyArn",
    "logKeyArn": "LogKeyArn",
    "guardKeyArn": "GuardKeyArn",
    "sealerKeyArn": "SealerKeyArn",
    "logName": "LogName",
}


@dataclass(frozen=True)
class StackOutputs:
    """The resources of a deployed stack a client needs (docs/cli.md, "Pinning the stack")."""

    table_name: str
    residual_writes_queue_url: str
    event_bus_name: str
    mac_key_arn: str
    log_key_arn: str
    guard_key_arn: str
    sealer_key_arn: str
    """The sealer key: its refusals (docs/verifiable-log.md, "Keys")."""
    log_name: str
    """``reseal/<stack name>``: the log key's name and the prefix of every checkpoint origin."""
    tenant_queue_urls: Mapping[str, str] | None = None
    """In a stack with tenants, each tenant's ``residual-writes`` queue URL by tenant id (the
    ``TenantQueueUrls`` output; docs/authorship.md, "Tenancy"); ``None``: one tenant."""
    integration_interval_seconds: int | None = None
    """The stack's integration interval, whole seconds 1 to 300 (the ``IntegrationIntervalSeconds``
    output); ``None`` for a stack deployed before it had one (the default 2 s): the freshness
    window a client states is maximum age + this (docs/deployment-log.md)."""


@dataclass(frozen=True)
class PinnedStack:
    """A stack's outputs with its log, guard and sealer verifier keys."""

    stack_name: str
    outputs: StackOutputs
    log_key: NoteVerifierKey
    guard_key: NoteVerifierKey
    sealer_key: NoteVerifierKey


def guard_key_name(log_name: str) -> str:
    """The guard key's signed-note name: ``<logName>/guard``."""
    return f"{log_name}/guard"


def sealer_key_name(log_name: str) -> str:
    """The sealer key's signed-note name: ``<logName>/sealer`` (it signs the sealer's refusals)."""
    return f"{log_name}/sealer"


_TENANT_QUEUE_URLS: Final = "TenantQueueUrls"
_INTEGRATION_INTERVAL: Final = "IntegrationIntervalSeconds"


def _tenant_queue_urls(value: Any, path: str, check: Checker) -> dict[str, str] | None:
    """``TenantQueueUrls`` as tenant id → queue URL (at least one), else an issue at ``path``."""
    if type(value) is not dict or not value:
        check.add(path, "expected an object of tenant id → queue URL, naming at least one tenant")
        return None
    for tenant, url in value.items():
        if not TENANT_ID_PATTERN.fullmatch(tenant):
            check.add(f"{path}.{tenant}", "not a tenant id")
        check.string(url, f"{path}.{tenant}", 2048, 1)
    return dict(value)


def _outputs_of(values: dict[str, Any]) -> StackOutputs:
    return StackOutputs(
        table_name=values["tableName"],
        residual_writes_queue_url=values["residualWritesQueueUrl"],
        event_bus_name=values["eventBusName"],
        mac_key_arn=values["macKeyArn"],
        log_key_arn=values["logKeyArn"],
        guard_key_arn=values["guardKeyArn"],
        sealer_key_arn=values["sealerKeyArn"],
        log_name=values["logName"],
        tenant_queue_urls=values.get("tenantQueueUrls"),
        integration_interval_seconds=values.get("integrationIntervalSeconds"),
    )


def read_stack_pin(path: str | os.PathLike[str] | None = None) -> PinnedStack:
    """Reads a stack pin file (the TypeScript client's ``reseal pin`` format): strict, every output
    present, the three keys parsed and named for this stack's log. A pin of format 1 (no sealer
    key) is refused: run ``reseal pin`` again.

    :param path: default ``$RESEAL_STACK_FILE``, else ``.reseal/stack.json``
    :raises StackConfigError: the file is missing or unreadable
    :raises InvalidInputError: naming each malformed field
    """
    file = Path(path if path is not None else os.environ.get(STACK_PIN_ENV) or DEFAULT_STACK_PIN_PATH)
    try:
        text = file.read_bytes()
    except OSError as error:
        raise StackConfigError(str(file), f"cannot read the stack pin ({error.strerror or error})") from error
    pin = parse_strict_json(text, "stack pin")
    check = Checker()
    if check.obj(pin, "", ("formatVersion", "stackName", "outputs", "logKey", "guardKey", "sealerKey")):
        version = pin.get("formatVersion")
        if version == 1 and type(version) is int:
            check.add("formatVersion", "format 1 pins no sealer key: run `reseal pin` again")
        elif version != STACK_PIN_FORMAT_VERSION or type(version) is not int:
            check.add("formatVersion", f"expected {STACK_PIN_FORMAT_VERSION}")
        check.string(pin.get("stackName"), "stackName", 2048, 1)
        outputs = pin.get("outputs")
        if check.obj(outputs, "outputs", tuple(_OUTPUTS), ("tenantQueueUrls", "integrationIntervalSeconds")):
            for name in _OUTPUTS:
                check.string(outputs.get(name), f"outputs.{name}", 2048, 1)
            if "tenantQueueUrls" in outputs:
                _tenant_queue_urls(outputs["tenantQueueUrls"], "outputs.tenantQueueUrls", check)
            if "integrationIntervalSeconds" in outputs:
                # The stack's integration interval (a pin of a stack deployed before it has none):
                # whole seconds, 1 to 300, as the TypeScript pin states it.
                interval = outputs["integrationIntervalSeconds"]
                if type(interval) is not int or not 1 <= interval <= 300:
                    check.add("outputs.integrationIntervalSeconds", "expected whole seconds, 1 to 300")
    check.raise_if_any("stack pin")
    keys: dict[str, NoteVerifierKey] = {}
    for field in ("logKey", "guardKey", "sealerKey"):
        try:
            keys[field] = parse_verifier_key(pin[field])
        except (InvalidInputError, TypeError) as error:
            check.add(field, str(error))
    check.raise_if_any("stack pin")
    log_name = pin["outputs"]["logName"]
    if keys["logKey"].name != log_name:
        check.add("logKey", f"names {keys['logKey'].name}, not the log {log_name}")
    for field, expected in (("guardKey", guard_key_name(log_name)), ("sealerKey", sealer_key_name(log_name))):
        if keys[field].name != expected:
            check.add(field, f"names {keys[field].name}, not {expected}")
    check.raise_if_any("stack pin")
    return PinnedStack(
        pin["stackName"], _outputs_of(pin["outputs"]), keys["logKey"], keys["guardKey"], keys["sealerKey"]
    )


def _kms_verifier_key(kms: Any, key_id: str, name: str) -> NoteVerifierKey:
    """An Ed25519 KMS key's public key (``GetPublicKey``, SPKI DER) as a note verifier key."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat, load_der_public_key

    out = kms.get_public_key(KeyId=key_id)
    if out.get("KeySpec") not in (None, "ECC_NIST_EDWARDS25519"):
        raise StackConfigError(key_id, f"expected an Ed25519 key, got {out.get('KeySpec')}")
    key = load_der_public_key(out["PublicKey"])
    if not isinstance(key, Ed25519PublicKey):
        raise StackConfigError(key_id, "GetPublicKey returned no Ed25519 public key")
    return note_verifier_key(name, key.public_bytes(Encoding.Raw, PublicFormat.Raw))


def stack_from_cloudformation(stack_name: str, cloudformation: Any, kms: Any) -> PinnedStack:
    """A stack's outputs (``DescribeStacks``) and its three verifier keys (KMS ``GetPublicKey``).

    :raises StackConfigError: the stack is missing, or an output is absent (naming it)
    """
    try:
        stacks = cloudformation.describe_stacks(StackName=stack_name).get("Stacks") or []
    except Exception as error:  # botocore's ClientError and connection errors alike
        raise StackConfigError(stack_name, f"cannot describe the stack ({error})") from error
    if not stacks:
        raise StackConfigError(stack_name, "stack not found")
    by_key = {o.get("OutputKey"): o.get("OutputValue") for o in stacks[0].get("Outputs") or []}
    missing = [key for key in _OUTPUTS.values() if not by_key.get(key)]
    if missing:
        raise StackConfigError(stack_name, f"missing outputs {', '.join(missing)}")
    values: dict[str, Any] = {field: str(by_key[key]) for field, key in _OUTPUTS.items()}
    if by_key.get(_TENANT_QUEUE_URLS):
        check = Checker()
        try:
            parsed = json.loads(str(by_key[_TENANT_QUEUE_URLS]))
        except ValueError:
            parsed = None
        values["tenantQueueUrls"] = _tenant_queue_urls(parsed, _TENANT_QUEUE_URLS, check)
        if check.issues:
            raise StackConfigError(stack_name, f"output {_TENANT_QUEUE_URLS} is not tenant id → queue URL JSON")
    interval_text = by_key.get(_INTEGRATION_INTERVAL)
    if interval_text is not None:
        # Never read as the default: a malformed output would understate the freshness window.
        text = str(interval_text)
        if not (text.isascii() and text.isdigit() and len(text) <= 3 and 1 <= int(text) <= 300):
            raise StackConfigError(stack_name, f"output {_INTEGRATION_INTERVAL} is not whole seconds, 1 to 300")
        values["integrationIntervalSeconds"] = int(text)
    outputs = _outputs_of(values)
    try:
        log_key = _kms_verifier_key(kms, outputs.log_key_arn, outputs.log_name)
        guard_key = _kms_verifier_key(kms, outputs.guard_key_arn, guard_key_name(outputs.log_name))
        sealer_key = _kms_verifier_key(kms, outputs.sealer_key_arn, sealer_key_name(outputs.log_name))
    except ResealError:
        raise
    except Exception as error:
        raise StackConfigError(stack_name, f"cannot read the verifier keys from KMS ({error})") from error
    return PinnedStack(stack_name, outputs, log_key, guard_key, sealer_key)
