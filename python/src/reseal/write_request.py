"""A residual write request built with the TypeScript client's defaults (``writeRequest``,
docs/guard.md, "Input"), for the online client to sign and publish."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .triage import build_manifest

__all__ = ["write_request"]


def write_request(
    *,
    residual_id: str,
    lineage_id: str,
    session_id: str,
    generation_epoch: int,
    payload: Any,
    boundary_at_ms: int,
    manifest: Mapping[str, Any],
    variables: Sequence[Mapping[str, Any]] = (),
    authority: str = "OPERATIONAL",
    predecessor: tuple[str, int] | None = None,
    declared_immutable_constants: Sequence[str] | None = None,
    supersedes: Mapping[str, Any] | None = None,
    policy: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """An unsigned write request: ``formatVersion`` 1, the boundary's active session =
    ``session_id`` (``predecessor`` = ``(session id, epoch)``), immutable constants declared from
    the variables, and ``manifest`` built with :func:`reseal.build_manifest` when it is its input
    (``{env, structuralKeys, claimDependencyMap}``). :meth:`ResealClient.publish` validates and
    signs it.

    :raises InvalidInputError: naming each bad field of a manifest input
    """
    declared = (
        list(declared_immutable_constants)
        if declared_immutable_constants is not None
        else [v["name"] for v in variables if v.get("freshness") == "IMMUTABLE_CONSTANT"]
    )
    boundary: dict[str, Any] = {"activeSessionId": session_id}
    if predecessor is not None:
        boundary["predecessorSessionId"], boundary["predecessorEpoch"] = predecessor
    boundary["boundaryAtMs"] = boundary_at_ms
    request: dict[str, Any] = {
        "formatVersion": 1,
        "residualId": residual_id,
        "lineageId": lineage_id,
        "sessionId": session_id,
        "generationEpoch": generation_epoch,
        "authority": authority,
        "payload": payload,
        "variablesUsed": [dict(v) for v in variables],
        "boundary": boundary,
        "declaredImmutableConstants": list(dict.fromkeys(declared)),
        "manifest": build_manifest(manifest) if "env" in manifest else dict(manifest),
    }
    if supersedes is not None:
        request["supersedes"] = {"seq": supersedes["seq"], "recordHash": supersedes["recordHash"]}
    if policy is not None:
        request["policy"] = dict(policy)
    return request
