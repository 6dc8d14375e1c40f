"""Freshness decided as the TypeScript core decides it (test/vectors/freshness.json, docs/deployment-log.md,
"Clients"): every chain verified to the same finding (each refusal among them), every proven record
and every "no such record" answer placed in the same state with the same verdict."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import vectors

from reseal.deployment_chain import (
    DeploymentChain,
    IndexClaim,
    decide_absence,
    decide_record_freshness,
    verify_deployment_chain,
)
from reseal.log import Checkpoint
from reseal.witness import parse_policy

FRESHNESS = vectors("freshness.json")


def claim(value: dict[str, Any]) -> IndexClaim:
    return IndexClaim(value["kind"], bytes.fromhex(value["proofHex"]), value.get("entry"))


def finding_json(found: DeploymentChain) -> dict[str, Any]:
    if found.kind == "REFUSED":
        return {"kind": found.kind, "refusal": found.refusal}
    assert found.checkpoint is not None
    out: dict[str, Any] = {
        "kind": found.kind,
        "checkpointSize": found.checkpoint.size,
        "witnessed": found.witnessed,
        "quorumTime": found.quorum_time,
        "freshUntil": found.fresh_until,
        "lineage": found.lineage,
    }
    if found.kind == "PROVEN":
        out["residual"] = found.residual
    else:
        out["absent"] = found.absent
    return out


@pytest.mark.parametrize("case", FRESHNESS["chains"], ids=lambda c: c["name"])
def test_each_chain_is_found_as_in_typescript(case: dict[str, Any]) -> None:
    given = case["input"]
    residual = given.get("residual")
    found = verify_deployment_chain(
        note=given["note"],
        policy=parse_policy(given["policyText"]),
        max_age_seconds=given["maxAgeSeconds"],
        now_seconds=given["nowSeconds"],
        index_root=bytes.fromhex(given["indexRootHex"]),
        inclusion=[bytes.fromhex(h) for h in given["inclusionHex"]],
        lineage_id=given["lineageId"],
        lineage=claim(given["lineage"]),
        residual=None if residual is None else (residual["residualId"], claim(residual["claim"])),
    )
    assert finding_json(found) == case["finding"]


def chain_of(value: dict[str, Any]) -> DeploymentChain:
    """A chain finding as the vectors write it (the deployment checkpoint as its size)."""
    kind = value["kind"]
    if kind in ("REFUSED", "UNPUBLISHED"):
        return DeploymentChain(kind, reason=value.get("reason", ""), refusal=value.get("refusal"))
    return DeploymentChain(
        kind,
        checkpoint=Checkpoint("reseal/test-stack", value["checkpointSize"], bytes(32)),
        witnessed=value["witnessed"],
        quorum_time=value["quorumTime"],
        fresh_until=value["freshUntil"],
        lineage=value["lineage"],
        residual=value.get("residual"),
        absent=value.get("absent"),
    )


def freshness_json(decided: Any) -> Any:
    return decided and {"state": decided.state, "checkpointSize": decided.checkpoint_size, "verdict": decided.verdict}


@pytest.mark.parametrize("case", FRESHNESS["records"], ids=lambda c: c["name"])
def test_each_record_is_placed_as_in_typescript(case: dict[str, Any]) -> None:
    answered = Checkpoint(
        "reseal/test-stack/lineage", case["answered"]["size"], bytes.fromhex(case["answered"]["rootHex"])
    )
    decided = decide_record_freshness(
        chain_of(case["chain"]),
        answered,
        case["record"],
        latest=case["latest"],
        residual_asked=case["residualAsked"],
        consistency=case["consistency"],
    )
    assert freshness_json(decided) == case["freshness"]


@pytest.mark.parametrize("case", FRESHNESS["absences"], ids=lambda c: c["name"])
def test_each_absence_is_placed_as_in_typescript(case: dict[str, Any]) -> None:
    asked = case["asked"]
    chain = chain_of(case["chain"])
    decided = (
        decide_absence(chain, residual_id=asked["residualId"])
        if "residualId" in asked
        else decide_absence(chain, seq=asked["seq"])
    )
    assert freshness_json(decided) == case["freshness"]


def test_every_refusal_and_state_is_covered() -> None:
    refusals = {c["finding"].get("refusal") for c in FRESHNESS["chains"]} - {None}
    assert refusals == {"POLICY_NOT_MET", "COSIGNATURES_TOO_OLD", "LEAF_NOT_LAST", "INDEX_PROOF_INVALID"}
    states = {c["freshness"]["state"] for c in FRESHNESS["records"] + FRESHNESS["absences"] if c["freshness"]}
    assert states == {"PROVEN", "SEALED_AWAITING_INTEGRATION", "ABSENT", "NOT_NEWEST", "INCONSISTENT", "REFUSED"}
