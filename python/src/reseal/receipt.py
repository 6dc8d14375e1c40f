"""The public receipt API (docs/verifiable-log.md, "Receipts"): one entry point for both formats.

Format 2 (the deployment chain, what ``reseal export --receipt`` writes by default) is checked
with a C2SP tlog-policy (:func:`reseal.verify_chain_receipt`); format 1 (the lineage's signed
checkpoint) with the log's verifier key (:func:`reseal.verify_checkpoint_receipt`). The same
choice as ``reseal verify --receipt (--policy FILE [--max-age-seconds S] | --log-key KEY)`` (docs/cli.md).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, Final

from .chain_receipt import verify_chain_receipt
from .deployment_chain import FreshnessPolicy, default_policy_text
from .errors import InputIssue, InvalidInputError
from .log import NoteVerifierKey, ReceiptVerification, parse_verifier_key, verify_checkpoint_receipt
from .records import V
from .strict_json import parse_strict_json
from .witness import TlogPolicy, parse_policy

__all__ = ["verify_receipt"]


def _missing(message: str) -> InvalidInputError:
    return InvalidInputError("receipt verification", [InputIssue("", message)])


def verify_receipt(
    receipt: Any,
    log_key: NoteVerifierKey | str | None = None,
    *,
    policy: TlogPolicy | FreshnessPolicy | str | None = None,
    max_age_seconds: int | None = None,
    now_seconds: int | None = None,
) -> ReceiptVerification:
    """Verifies a receipt (``reseal export --receipt``) with no AWS at all, either format.

    Format 2 is checked against ``policy`` (a tlog-policy text, parsed policy, or
    :class:`FreshnessPolicy`; ``reseal policy`` prints the stack's), or ``log_key`` alone (then
    ``quorum none``: unwitnessed). Freshness is checked only when asked: ``max_age_seconds`` holds
    the quorum of cosignatures to that age before ``now_seconds`` (default: the clock); ``None``
    proves inclusion as of the cosignature time, not freshness. Any other format is read as format
    1, checked with ``log_key`` (or the one log of ``policy``); it carries no deployment chain, so
    under a ``policy`` with a quorum of cosignatures an intact one is refused
    (``UNVERIFIED_TAMPER_RISK``, ``refusal`` ``POLICY_NOT_MET``: fail closed), and with ``quorum
    none`` or ``max_age_seconds`` its reason says freshness was not checked (docs/cli.md).

    :param receipt: the receipt as parsed JSON, or its text (read with the strict JSON reader)
    :returns: ``VERIFIED_INTACT`` with the record (and, by format, the lineage ``checkpoint`` or
        the ``deployment`` checkpoint), or the verdict and why not: ``HASH_MISMATCH`` for a
        malformed receipt, an unknown format or a checkpoint that does not verify,
        ``UNVERIFIED_TAMPER_RISK`` with ``refusal`` for a deployment chain that does not verify;
        never raises on a bad receipt
    :raises InvalidInputError: no key or policy fit for the receipt's format, a malformed
        ``log_key``, or a clock or maximum age that is not whole seconds (the caller's)
    :raises PolicyFormatError: ``policy`` is a text that is not a tlog-policy
    """
    key = parse_verifier_key(log_key) if isinstance(log_key, str) else log_key
    tlog = parse_policy(policy) if isinstance(policy, str) else policy
    if isinstance(tlog, FreshnessPolicy):
        tlog = tlog.policy
    if isinstance(receipt, (str, bytes)):
        try:
            receipt = parse_strict_json(receipt, "receipt")
        except InvalidInputError as error:
            return ReceiptVerification(V.HASH_MISMATCH, f"malformed receipt: {error}", None, None)
    version = receipt.get("formatVersion") if type(receipt) is dict else None
    if type(version) is int and version == 2:
        if tlog is None:
            if key is None:
                raise _missing("a format-2 receipt is checked with a tlog-policy, or a log key alone (quorum none)")
            tlog = parse_policy(default_policy_text(key))
        now = int(time.time()) if now_seconds is None else now_seconds
        result = verify_chain_receipt(receipt, tlog, now_seconds=now, max_age_seconds=max_age_seconds)
        return ReceiptVerification(
            result.verdict,
            result.reason,
            result.record,
            None,
            format_version=2,
            refusal=result.refusal,
            deployment=result.deployment,
            freshness_checked=result.freshness_checked,
        )
    if key is None:
        if tlog is None or len(tlog.logs) != 1:
            raise _missing("a format-1 receipt is checked with the log's verifier key (reseal log-key prints it)")
        key = tlog.logs[0][0]
    checked = verify_checkpoint_receipt(receipt, key)
    if checked.verdict != V.VERIFIED_INTACT or (tlog is None and max_age_seconds is None):
        return checked
    if tlog is not None and tlog.quorum.kind != "NONE":
        # Fail closed: a format-1 receipt carries no deployment chain, so no quorum can be shown.
        return ReceiptVerification(
            V.UNVERIFIED_TAMPER_RISK, FORMAT_1_UNDER_QUORUM, None, checked.checkpoint, refusal="POLICY_NOT_MET"
        )
    return replace(checked, reason=f"{checked.reason} (freshness not checked: {FORMAT_1_NO_FRESHNESS})")


FORMAT_1_NO_FRESHNESS: Final = (
    "a format-1 receipt carries no deployment chain, only inclusion in the lineage checkpoint; export format 2"
)
FORMAT_1_UNDER_QUORUM: Final = (
    "POLICY_NOT_MET: a format-1 receipt carries no deployment chain, so it cannot show freshness under a "
    "policy with a quorum of cosignatures: export format 2 (reseal export --receipt --receipt-format 2)"
)
