"""The signed-outcome vectors (test/vectors/outcome.json, docs/verifiable-log.md "Signed
outcomes"): a refusal of stage GUARD counts only under the guard key, of stage SEALER only under
the sealer key or, for one stored before the sealer key, the log key; read here as the
TypeScript client reads them."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import vectors

from reseal import OutcomeVerificationError
from reseal.log import open_outcome, open_outcome_of_stage, outcome_key_roles, parse_verifier_key

VECTORS = vectors("outcome.json")
LOG_NAME: str = VECTORS["logName"]
KEYS = {role: parse_verifier_key(text) for role, text in VECTORS["keys"].items()}


def accepted_by(case: dict[str, Any]) -> str | None:
    """The key that makes the case's note an outcome of its stage, or ``None``."""
    try:
        statement = open_outcome_of_stage(case["note"], case["stage"], KEYS, LOG_NAME)
    except OutcomeVerificationError:
        return None
    for role in ("guard", "sealer", "log"):
        try:
            if open_outcome(case["note"], KEYS[role], LOG_NAME) == statement:
                return role
        except OutcomeVerificationError:
            continue
    raise AssertionError("an accepted note verified under no key")


@pytest.mark.parametrize("case", VECTORS["cases"], ids=lambda case: case["name"])
def test_each_vector_case_is_accepted_by_the_key_it_names_or_refused(case: dict[str, Any]) -> None:
    assert accepted_by(case) == case["acceptedBy"]


def test_the_stage_keys_are_those_of_the_typescript_reader() -> None:
    assert outcome_key_roles("GUARD") == ("guard",)
    assert outcome_key_roles("SEALER") == ("sealer", "log")
    assert {c["acceptedBy"] for c in VECTORS["cases"]} == {"guard", "sealer", "log", None}


def test_a_key_in_the_wrong_slot_is_refused_by_name() -> None:
    case = next(c for c in VECTORS["cases"] if c["name"] == "guard refusal, guard key")
    with pytest.raises(OutcomeVerificationError, match=f"the sealer key names {LOG_NAME}/guard"):
        open_outcome_of_stage(case["note"], "SEALER", {**KEYS, "sealer": KEYS["guard"]}, LOG_NAME)
    with pytest.raises(OutcomeVerificationError, match="no verifier key for stage SEALER"):
        open_outcome_of_stage(case["note"], "SEALER", {"guard": KEYS["guard"]}, LOG_NAME)
