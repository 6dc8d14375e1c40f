"""A ``NOT_FOUND`` recall by residual id, checked against the records the index has not integrated
yet (docs/deployment-log.md, "Clients", item 3), as the TypeScript ``recallAbsence``
(``client/recall-absence.ts``) decides it: absence in the index is absence only as of the last
integration, so a table writer deleting the marker of a record sealed since cannot make it "not
found"."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from .deployment_chain import DeploymentChain, RecordFreshness
from .errors import LogVerificationError
from .log import Checkpoint
from .logged_seal_search import LoggedSealSearch, search_logged_seal
from .records import V

__all__ = ["RecallAbsence", "recall_absence"]


@dataclass(frozen=True)
class RecallAbsence:
    """What the search decided: ``freshness`` to show (``absence`` with its reason qualified,
    ``SEALED_AWAITING_INTEGRATION`` when found, ``INCONSISTENT`` when the records do not verify, or
    ``absence`` unchanged; ``None`` with no ``absence``), and, when the signed log contradicts "no
    such record" or does not verify, the recall's ``verdict`` and ``reason`` (else both ``None``)."""

    freshness: RecordFreshness | None
    verdict: str | None = None
    reason: str | None = None


def recall_absence(
    prove_in: Callable[[int, Checkpoint], dict[str, Any]],
    residual_id: str,
    latest: Checkpoint | None,
    chain: DeploymentChain | None,
    absence: RecordFreshness | None,
) -> RecallAbsence:
    """Searches the lineage's records past the size the index holds (all of them with no
    deployment log), proven in ``latest``, newest first, at most 256
    (:func:`reseal.logged_seal_search.search_logged_seal`, the search ``wait_for_outcome`` runs at
    its deadline). Found: ``SEALED_AWAITING_INTEGRATION`` and ``UNVERIFIED_TAMPER_RISK`` (triage's
    answer is contradicted: the marker was deleted). Not found: ``ABSENT`` whose reason says as of
    which integration, and how many records not yet integrated were searched; never a bare "absent".

    :param prove_in: record ``seq`` read and proven by inclusion in the tree head given
    :param latest: the lineage's newest tree head as the client read it (``None``: none): a signed
        lineage checkpoint, or (``note`` ``None``) the tree a head item the sealer MAC'd claims
    :param chain: the deployment chain read for the residual id, or ``None`` (no freshness checked)
    :param absence: what the index decided (``decide_absence``), or ``None``
    :raises: what ``prove_in`` raises other than :class:`LogVerificationError` (infrastructure)
    """
    unchanged = RecallAbsence(absence)
    if latest is None or (absence is not None and absence.state != "ABSENT"):
        return unchanged
    indexed = chain if chain is not None and chain.kind in ("PROVEN", "ABSENT") else None
    indexed_size = int(indexed.lineage["treeSize"]) if indexed is not None and indexed.lineage is not None else 0
    size = latest.size
    # A head the sealer MAC'd carries no signature this client can check: its tree is the table's word.
    tree = (
        f"the lineage's signed checkpoint of {size} records"
        if latest.note is not None
        else f"the tree the head item claims ({size} records, not signed: the table's word)"
    )
    at = (
        f"the {indexed_size} records the index holds as of deployment checkpoint {indexed.checkpoint.size}"
        if indexed is not None and indexed.checkpoint is not None
        else "no deployment index read"
    )
    if size <= indexed_size:
        if absence is None:
            return unchanged
        return RecallAbsence(
            replace(absence, reason=f"{absence.reason}, the last integration; {tree} holds no record past them")
        )
    try:
        search: LoggedSealSearch = search_logged_seal(prove_in, residual_id, latest, from_seq=indexed_size)
    except LogVerificationError as error:
        reason = f"absence is not proven: the lineage's records past {at} do not verify: {error.reason}"
        freshness = (
            None if absence is None else replace(absence, state="INCONSISTENT", reason=reason, verdict=error.verdict)
        )
        return RecallAbsence(freshness, error.verdict, reason)
    if search.kind == "FOUND":
        reason = (
            f"residual {residual_id} is sealed at seq {search.seq}, proven in {tree}, past {at}: "
            'the answer "no such record" is contradicted (its marker was deleted)'
        )
        verdict = V.UNVERIFIED_TAMPER_RISK
        freshness = (
            None
            if absence is None
            else replace(absence, state="SEALED_AWAITING_INTEGRATION", reason=reason, verdict=verdict)
        )
        return RecallAbsence(freshness, verdict, reason)
    if absence is None:
        return unchanged
    since = "the table shows sealed since (unsigned)" if latest.note is None else "sealed since"
    searched = (
        f"the {search.records} records {since} (not yet integrated) do not hold it"
        if search.complete
        else f"the newest {search.searched} of the {search.records} records {since} (not yet integrated) "
        "do not hold it; the older ones were not searched"
    )
    return RecallAbsence(
        replace(
            absence,
            reason=f"absent as of deployment checkpoint {absence.checkpoint_size} ({indexed_size} records of the "
            f"lineage integrated); {searched}",
        )
    )
