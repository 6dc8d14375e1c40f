"""An honest client's admission check before publishing (docs/authorship.md, "Two refusals, in
order"), as the TypeScript ``checkLocalAdmission`` (``client/local-admission.ts``) makes it from the
lineage's head item: one strongly consistent ``GetItem``, however long the lineage."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .authorship import AdmissionState, admit_write, parse_lineage_policy
from .errors import InputIssue, InvalidInputError
from .head_state import claimed_head_state
from .item_layout import StoredLogHead

__all__ = ["check_local_admission", "head_admission_state"]

_WRITER_BOUND = 2


def head_admission_state(lineage_id: str, stored: StoredLogHead) -> AdmissionState | None:
    """The state admission of the next record is decided on, as the head item shows it
    (unauthenticated), or ``None`` when it cannot tell. It tells only when the item is a well-formed
    claimed state (:func:`reseal.head_state.claimed_head_state`) holding a policy that hashes to the
    ``policyDigest`` of the tip header it carries (a small head: the stored policy itself), or with
    a format-1 tip header (a legacy lineage). A head stored before heads carried the policy, a small
    head with none, a malformed head or one whose policy its header does not name: ``None``."""
    header = stored.header
    if stored.policy is None and not (isinstance(header, Mapping) and header.get("formatVersion") == 1):
        return None
    try:
        claimed = claimed_head_state(lineage_id, stored)
    except InvalidInputError:
        return None
    seq = claimed["headSeq"] + 1
    legacy = isinstance(header, Mapping) and header.get("formatVersion") != _WRITER_BOUND
    if legacy:
        return AdmissionState(lineage_id, seq, None, legacy_tip=True)
    return AdmissionState(lineage_id, seq, parse_lineage_policy(stored.policy))


def check_local_admission(
    stored: StoredLogHead | None,
    request: Mapping[str, Any],
    first_record_stored: Callable[[], bool] | None = None,
) -> None:
    """Refuses a signed, parsed write ``request`` its lineage visibly does not admit, given the
    lineage's head item read strongly just before (``None``: no head, the inception rules). The
    sealer records ``WRITER_NOT_ADMITTED`` without a KMS signature, so its refusal is never a
    proven outcome: the client refuses to send such a write instead.

    Advisory only: the head item is read unauthenticated (its head-state MAC is not checked). A
    table writer can make it pass (the sealer, deciding on authenticated state, still refuses), or
    refuse an admitted write by editing that one item (its policy with the header's digest, or the
    header's format), which a client reading records could be made to by editing one record; a
    head that cannot tell (:func:`head_admission_state`) passes, and the sealer decides.

    No head item decides by the inception rules, but a write they refuse passes when
    ``first_record_stored()`` (asked on that path only) says a record 0 is stored: the lineage
    exists, its head item never put (a sealer stopped between the records and the head), deleted
    or made unreadable by a table writer, and the sealer decides.

    :raises InvalidInputError: (path ``writer``) the write is visibly not admitted, with why
    """
    lineage_id = request["lineageId"]
    if stored is None:
        state: AdmissionState | None = AdmissionState(lineage_id, 0, None)
    else:
        state = head_admission_state(lineage_id, stored)
    if state is None:
        return
    writer = request["writer"]
    admission = admit_write(state, writer["publicKey"], request.get("policy"))
    if admission.refused is not None and stored is None and first_record_stored is not None and first_record_stored():
        return
    if admission.refused is not None:
        raise InvalidInputError(
            "residual write request",
            [InputIssue("writer", f"key {writer['keyId'][:256]} is not admitted: {admission.refused}")],
        )
