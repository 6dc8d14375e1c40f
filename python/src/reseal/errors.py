"""Errors raised by the ``reseal`` package (the same classes and meanings as the TypeScript core)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ResealError",
    "InputIssue",
    "InvalidInputError",
    "StrictJsonError",
    "CanonicalizationError",
    "NoteFormatError",
    "CheckpointFormatError",
    "NoteVerificationError",
    "CheckpointOriginMismatchError",
    "OutcomeVerificationError",
    "ManifestSealMismatchError",
    "HeaderTooLargeError",
    "AnchorKeyMismatchError",
    "CheckpointFileError",
    "IndexProofFormatError",
    "PolicyFormatError",
]


class ResealError(Exception):
    """Base class of every error the package raises on purpose."""


@dataclass(frozen=True)
class InputIssue:
    """One problem of an input: ``path`` is dotted (``variablesUsed.1.name``), ``""`` for the root."""

    path: str
    message: str


class InvalidInputError(ResealError, ValueError):
    """An input is malformed; ``issues`` names each problem. Never retryable."""

    def __init__(self, what: str, issues: list[InputIssue]) -> None:
        self.what = what
        self.issues = list(issues)
        first = self.issues[0] if self.issues else None
        where = f" at {first.path or '<root>'}: {first.message}" if first else ""
        more = f" (+{len(self.issues) - 1} more)" if len(self.issues) > 1 else ""
        super().__init__(f"invalid {what}{where}{more}")


class StrictJsonError(InvalidInputError):
    """A JSON text is refused by the strict reader (docs/canonical-form.md, "duplicate member names")."""


class CanonicalizationError(ResealError, ValueError):
    """A value has no RFC 8785 form under Reseal's policy; ``path`` is JSON-pointer-like (``/a/0``)."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"cannot canonicalize value at {path or '<root>'}: {reason}")


class NoteFormatError(InvalidInputError):
    """A signed note is malformed (docs/verifiable-log.md, "Signed notes")."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__("signed note", [InputIssue(path, message)])


class CheckpointFormatError(InvalidInputError):
    """A checkpoint body is malformed (docs/verifiable-log.md, "Checkpoints")."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__("checkpoint", [InputIssue(path, message)])


class NoteVerificationError(ResealError):
    """A signed note does not verify under the key asked for."""

    def __init__(self, key_name: str, reason: str) -> None:
        self.key_name = key_name
        super().__init__(f"note does not verify with key {key_name}: {reason}")


class CheckpointOriginMismatchError(ResealError):
    """A valid checkpoint of another log (lineage or stack) than the one asked for."""

    def __init__(self, expected: str, actual: str) -> None:
        self.expected = expected
        self.actual = actual
        super().__init__(f"checkpoint origin is {actual}, expected {expected}")


class OutcomeVerificationError(ResealError):
    """A signed outcome statement does not verify or does not match the stored refusal."""


class ManifestSealMismatchError(ResealError):
    """A manifest's ``preconditionSeal`` is not the composite seal of its own key hashes."""

    def __init__(self, sealed: str, recomputed: str) -> None:
        self.sealed = sealed
        self.recomputed = recomputed
        super().__init__(
            f"manifest preconditionSeal {sealed} does not match compositeSeal(baselineKeyHashes) {recomputed}"
        )


class ManifestReadBoundError(ResealError):
    """The manifest items one read puts back into its records would inflate past the read's bound
    together (docs/sealing.md, "Stored items"): planted gzip bombs, or an honest page of unusually
    many large distinct manifests (read fewer records at a time). The read stops before holding more."""

    def __init__(self, manifest_digest: str, bound_bytes: int) -> None:
        self.manifest_digest = manifest_digest
        self.bound_bytes = bound_bytes
        super().__init__(
            f"the manifest items of one read inflate past {bound_bytes} bytes together "
            f"(at MANIFEST#{manifest_digest}); read fewer records at a time"
        )


class HeaderTooLargeError(ResealError):
    """A record header's canonical bytes exceed the 4,096-byte MAC limit."""


class AnchorKeyMismatchError(ResealError):
    """A MAC names another key than the one this anchor holds."""


class CheckpointFileError(ResealError):
    """A checkpoint store file cannot be read or is not a checkpoint file."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        super().__init__(f"checkpoint store {path}: {reason}")


class IndexProofFormatError(InvalidInputError):
    """A verifiable-index proof is malformed, in either form (docs/verifiable-index.md, "Proofs")."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__("index proof", [InputIssue(path, message)])


class PolicyFormatError(InvalidInputError):
    """A C2SP tlog-policy text is malformed; ``path`` names the line (docs/witness.md, "Policy")."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__("tlog policy", [InputIssue(path, message)])


class LogVerificationError(ResealError):
    """The stored log of a lineage does not verify (a rollback, a fork, a forged checkpoint, a
    record that cannot be proven): ``verdict`` and ``reason`` say which (docs/verifiable-log.md)."""

    def __init__(self, lineage_id: str, verdict: str, reason: str) -> None:
        self.lineage_id = lineage_id
        self.verdict = verdict
        self.reason = reason
        super().__init__(f"lineage {lineage_id}: {verdict}: {reason}")


class UnverifiedOutcomeError(LogVerificationError):
    """A write's residual-id marker names a record that cannot be proven: never counted as sealed."""

    def __init__(self, lineage_id: str, residual_id: str, seq: int, verdict: str, reason: str) -> None:
        super().__init__(lineage_id, verdict, f"residual {residual_id} at seq {seq}: {reason}")
        self.residual_id = residual_id
        self.seq = seq


class NotIntegratedError(ResealError):
    """Record ``seq`` of ``lineage_id`` is sealed, awaiting integration: past the lineage head the
    index holds (or its lineage is not indexed yet, or nothing is published), so no signed tree
    proves it yet (docs/deployment-log.md, "Clients"). Not tampering: ask again after the next
    integration (the stack's interval, 2 s by default)."""

    def __init__(self, lineage_id: str, seq: int, reason: str) -> None:
        self.lineage_id = lineage_id
        self.seq = seq
        self.reason = reason
        super().__init__(f"lineage {lineage_id}: record {seq} is sealed, awaiting integration: {reason}")


class WaitTimeoutError(ResealError, TimeoutError):
    """Nothing proven appeared within the wait; ``what`` names what was awaited."""

    def __init__(self, what: str, timeout_s: float) -> None:
        self.what = what
        self.timeout_s = timeout_s
        super().__init__(f"timed out after {timeout_s:g} s waiting for {what}")


class StackConfigError(ResealError):
    """A stack's outputs or pin file cannot be used: ``reason`` names what is missing or malformed."""

    def __init__(self, source: str, reason: str) -> None:
        self.source = source
        self.reason = reason
        super().__init__(f"{source}: {reason}")


class TenantMismatchError(ResealError):
    """``TENANT_MISMATCH`` (docs/authorship.md, "Tenancy", "Refused at the caller"): a client acting
    for tenant ``tenant_id`` named a lineage whose id does not begin ``<tenant_id>/``. Raised before
    anything is read, signed or sent; the same code the guard files a cross-tenant write under and
    the TypeScript client throws (``TenantMismatchError``)."""

    code = "TENANT_MISMATCH"

    def __init__(self, lineage_id: str, tenant_id: str) -> None:
        self.lineage_id = lineage_id
        self.tenant_id = tenant_id
        super().__init__(
            f"TENANT_MISMATCH: lineage {lineage_id} is not of tenant {tenant_id}: a caller of tenant {tenant_id} "
            f"may write, recall and read only lineages whose id begins {tenant_id}/"
        )


class TenantRequiredError(InvalidInputError):
    """``TENANT_REQUIRED`` (docs/authorship.md, "Tenancy", "A caller of no tenant"): a write or a
    recall on a stack with tenants by a client that names none of them, or a tenant the stack does
    not have. The stack would refuse it where that client cannot look (IAM on AWS; the guard's
    unsigned refusal and triage's log behind it), so it is raised before anything is signed or
    sent. One issue at ``tenant_id``; never retryable."""

    code = "TENANT_REQUIRED"

    def __init__(self, stack_tenants: list[str], tenant_id: str | None) -> None:
        self.stack_tenants = list(stack_tenants)
        self.tenant_id = tenant_id
        named = ", ".join(self.stack_tenants)
        message = (
            f"TENANT_REQUIRED: the stack has tenants ({named}): name the tenant this client acts for "
            "(tenant_id); a write or recall of no tenant is refused by the stack where its caller cannot read it"
            if tenant_id is None
            else f"TENANT_REQUIRED: {tenant_id} is not a tenant of the stack (its tenants: {named})"
        )
        super().__init__("tenant", [InputIssue("tenant_id", message)])


class HiddenSealError(ResealError):
    """A write's seal is proven, but the table shows no residual-id marker for it (docs/cli.md,
    ``publish --wait``): the deployment index maps its residual id (``seq`` the index names), or
    its record is in the lineage's signed log. The sealer writes a record and its marker in one
    transaction, so only a table writer's deletion leaves a proven seal without a marker; the wait
    ends with this tamper finding instead of a timeout, as the TypeScript client's
    ``HiddenSealError`` (the CLI's exit 20).

    ``seq`` is ``None`` when the signed log did not verify; ``verdict`` is
    ``UNVERIFIED_TAMPER_RISK`` or the signed log's finding."""

    def __init__(self, lineage_id: str, residual_id: str, seq: int | None, verdict: str, reason: str) -> None:
        self.lineage_id = lineage_id
        self.residual_id = residual_id
        self.seq = seq
        self.verdict = verdict
        self.reason = reason
        super().__init__(
            f"residual {residual_id} (lineage {lineage_id}) has no residual-id marker in the table, but {verdict}: {reason}"
        )
