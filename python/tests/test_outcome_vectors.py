"""The signed-outcome vectors (test/vectors/outcome.json, docs/verifiable-log.md "Signed
outcomes"): a refusal of stage GUARD counts only under the guard key, of stage SEALER (and every
conflict) only under the sealer key or, for one stored before the sealer key, the log key; read
here as the TypeScript client reads them, and by the online client's refusal check."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import vectors

from reseal import OutcomeVerificationError
from reseal.client import ResealClient
from reseal.log import (
    check_conflict,
    check_rejection,
    open_outcome,
    open_outcome_of_stage,
    outcome_key_roles,
    parse_verifier_key,
)
from reseal.stack import PinnedStack, StackOutputs

VECTORS = vectors("outcome.json")
LOG_NAME: str = VECTORS["logName"]
KEYS = {role: parse_verifier_key(text) for role, text in VECTORS["keys"].items()}
CASES = VECTORS["cases"]


def accepted_by(case: dict[str, Any]) -> str | None:
    """The key that makes the case an outcome of its stage (matching its stored item), or ``None``."""
    item = case["item"]
    try:
        statement = open_outcome_of_stage(item["statement"], case["stage"], KEYS, LOG_NAME)
        (check_rejection if case["kind"] == "REJECTED" else check_conflict)(item, statement)
    except OutcomeVerificationError:
        return None
    for role in ("guard", "sealer", "log"):
        try:
            if open_outcome(item["statement"], KEYS[role], LOG_NAME) == statement:
                return role
        except OutcomeVerificationError:
            continue
    raise AssertionError("an accepted note verified under no key")


@pytest.mark.parametrize("case", CASES, ids=lambda case: case["name"])
def test_each_vector_case_is_accepted_by_the_key_it_names_or_refused(case: dict[str, Any]) -> None:
    assert accepted_by(case) == case["acceptedBy"]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case["name"])
def test_the_online_client_takes_a_refusal_exactly_when_the_vector_accepts_it(case: dict[str, Any]) -> None:
    stack = PinnedStack(
        "test-stack",
        StackOutputs("t", "queue", "bus", "mac", "log", "guard", "sealer", LOG_NAME),
        KEYS["log"],
        KEYS["guard"],
        KEYS["sealer"],
    )
    client = ResealClient(stack, dynamodb=None, sqs=None, events=None, freshness=False)
    statement = client._open_refusal(case["kind"], case["item"], VECTORS["request"])
    assert (statement is not None) == (case["acceptedBy"] is not None)


def test_the_stage_keys_are_those_of_the_typescript_reader() -> None:
    assert outcome_key_roles("GUARD") == ("guard",)
    assert outcome_key_roles("SEALER") == ("sealer", "log")
    assert {c["acceptedBy"] for c in CASES} == {"guard", "sealer", "log", None}


def test_a_key_in_the_wrong_slot_is_refused_by_name() -> None:
    note = next(c for c in CASES if c["name"] == "guard refusal, guard key")["item"]["statement"]
    with pytest.raises(OutcomeVerificationError, match=f"the sealer key names {LOG_NAME}/guard"):
        open_outcome_of_stage(note, "SEALER", {**KEYS, "sealer": KEYS["guard"]}, LOG_NAME)
    with pytest.raises(OutcomeVerificationError, match="no verifier key for stage SEALER"):
        open_outcome_of_stage(note, "SEALER", {"guard": KEYS["guard"]}, LOG_NAME)
