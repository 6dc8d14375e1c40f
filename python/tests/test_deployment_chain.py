"""Freshness from the deployment log (docs/deployment-log.md, "Clients"): the whole-chain vector of
test/vectors/deployment-log.json, which the TypeScript integrator writes, verified here field by
field; each refusal of the chain; and where a record or an absence stands against it."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import vectors

from reseal.deployment_chain import (
    DeploymentChain,
    IndexClaim,
    decide_absence,
    decide_record_freshness,
    default_policy_text,
    deployment_leaf,
    freshness_policy,
    verify_deployment_chain,
)
from reseal.errors import InvalidInputError
from reseal.index import decode_index_proof, encode_index_proof, index_proof_from_json
from reseal.log import (
    Checkpoint,
    Ed25519NoteSigner,
    note_verifier_key,
    parse_checkpoint_body,
    sign_checkpoint,
)
from reseal.witness import Ed25519Cosigner, format_cosigner_key

LOG = vectors("deployment-log.json")
CHAIN = LOG["chain"]
SIGNER = Ed25519NoteSigner(LOG["logKeyName"], bytes(range(32)))  # the log test seed (docs/deployment-log.md, "Vectors")
LOG_KEY = note_verifier_key(LOG["logKeyName"], bytes.fromhex(LOG["publicKeyHex"]))
WITNESS = Ed25519Cosigner("reseal/test-witness", bytes(range(0x20, 0x40)))
UNWITNESSED = freshness_policy(default_policy_text(LOG_KEY))
WITNESSED = freshness_policy(
    default_policy_text(LOG_KEY, (format_cosigner_key(WITNESS.key), "https://witness.example/")), 180, 2
)
NOW = 1_800_000_000
ENTRY = CHAIN["entry"]
LINEAGE = ENTRY["lineageId"]
ROOT = bytes.fromhex(CHAIN["indexRootHex"])
INCLUSION = [bytes.fromhex(h) for h in CHAIN["inclusionProofHex"]]
PRESENT = IndexClaim("presence", bytes.fromhex(CHAIN["indexProofHex"]), ENTRY)


def _cosigned(note: str, timestamp: int) -> str:
    body = note.split("\n\n")[0] + "\n"
    return note + WITNESS.cosign(body, timestamp)


def _chain(**changes: object) -> DeploymentChain:
    args: dict[str, object] = {
        "note": CHAIN["signedCheckpoint"],
        "policy": UNWITNESSED.policy,
        "max_age_seconds": 180,
        "now_seconds": NOW,
        "index_root": ROOT,
        "inclusion": INCLUSION,
        "lineage_id": LINEAGE,
        "lineage": PRESENT,
    }
    args.update(changes)
    return verify_deployment_chain(**args)  # type: ignore[arg-type]


def test_the_whole_chain_vector_is_proven_field_by_field() -> None:
    assert CHAIN["signedCheckpoint"] == sign_checkpoint(
        parse_checkpoint_body(CHAIN["signedCheckpoint"].split("\n\n")[0] + "\n"), SIGNER
    )
    assert CHAIN["treeSize"] == LOG["integrations"][-1]["treeSize"] and CHAIN["leafIndex"] == CHAIN["treeSize"] - 1
    assert deployment_leaf(ROOT).hex() == LOG["integrations"][CHAIN["leafIndex"]]["leafHex"]
    assert CHAIN["indexRootHex"] == LOG["integrations"][CHAIN["leafIndex"]]["indexRootHex"]
    found = _chain()
    assert found.kind == "PROVEN", found.reason
    assert found.checkpoint is not None and found.checkpoint.size == CHAIN["treeSize"]
    assert found.checkpoint.root_hash.hex() == LOG["integrations"][-1]["rootHex"]
    assert found.lineage == ENTRY["value"] and found.residual is None
    assert (found.witnessed, found.quorum_time, found.fresh_until) == (False, None, None)
    # The same proof in its JSON form and as a decoded IndexProof.
    proof = decode_index_proof(bytes.fromhex(CHAIN["indexProofHex"]))
    assert encode_index_proof(proof).hex() == CHAIN["indexProofHex"]
    assert _chain(lineage=IndexClaim("presence", proof, ENTRY)).kind == "PROVEN"


def test_a_witnessed_chain_is_dated_by_its_cosignature_and_refused_once_too_old() -> None:
    note = _cosigned(CHAIN["signedCheckpoint"], NOW - 10)
    found = _chain(note=note, policy=WITNESSED.policy)
    assert found.kind == "PROVEN", found.reason
    assert (found.witnessed, found.quorum_time, found.fresh_until) == (True, NOW - 10, NOW - 10 + 180)
    stale = _chain(note=note, policy=WITNESSED.policy, now_seconds=NOW + 171)
    assert (stale.kind, stale.refusal) == ("REFUSED", "COSIGNATURES_TOO_OLD")
    assert WITNESSED.window_seconds == 182 and WITNESSED.witnessing == "WITNESSED"
    assert UNWITNESSED.window_seconds is None and UNWITNESSED.witnessing == "UNWITNESSED"


OTHER_SIGNER = Ed25519NoteSigner(LOG["logKeyName"], bytes(range(1, 33)))
SIGNED = CHAIN["signedCheckpoint"]
BODY = SIGNED.split("\n\n")[0] + "\n"


@pytest.mark.parametrize(
    ("case", "changes", "refusal"),
    [
        (
            "a note signed by another key",
            {"note": sign_checkpoint(parse_checkpoint_body(BODY), OTHER_SIGNER)},
            "POLICY_NOT_MET",
        ),
        ("a garbled note", {"note": "not a note"}, "POLICY_NOT_MET"),
        (
            "a note of no policy log",
            {"note": sign_checkpoint(Checkpoint("reseal/other", 3, b"\1" * 32), SIGNER)},
            "POLICY_NOT_MET",
        ),
        ("no cosignature under a witnessed policy", {"policy": WITNESSED.policy}, "POLICY_NOT_MET"),
        (
            "a forged cosignature",
            {"policy": WITNESSED.policy, "note": _cosigned(SIGNED, NOW)[:-6] + "AAAA=\n"},
            "POLICY_NOT_MET",
        ),
        (
            "only a cosignature older than the maximum age",
            {"policy": WITNESSED.policy, "note": _cosigned(SIGNED, NOW - 181)},
            "COSIGNATURES_TOO_OLD",
        ),
        (
            "an index root of another leaf",
            {"index_root": bytes.fromhex(LOG["integrations"][1]["indexRootHex"])},
            "LEAF_NOT_LAST",
        ),
        ("an index root of 31 bytes", {"index_root": ROOT[:31]}, "LEAF_NOT_LAST"),
        ("no inclusion proof", {"inclusion": []}, "LEAF_NOT_LAST"),
        (
            "a checkpoint of size 0",
            {
                "note": sign_checkpoint(
                    Checkpoint(
                        LOG["logKeyName"],
                        0,
                        bytes.fromhex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
                    ),
                    SIGNER,
                )
            },
            "LEAF_NOT_LAST",
        ),
        (
            "an edited entry",
            {"lineage": IndexClaim("presence", PRESENT.proof, {**ENTRY, "value": {**ENTRY["value"], "treeSize": 5}})},
            "INDEX_PROOF_INVALID",
        ),
        ("an entry of another lineage", {"lineage_id": "lineage-1"}, "INDEX_PROOF_INVALID"),
        ("absence claimed for a present key", {"lineage": IndexClaim("absence", PRESENT.proof)}, "INDEX_PROOF_INVALID"),
        ("a malformed proof", {"lineage": IndexClaim("presence", b"\x09", ENTRY)}, "INDEX_PROOF_INVALID"),
        (
            "a malformed entry",
            {"lineage": IndexClaim("presence", PRESENT.proof, {"kind": "lineage"})},
            "INDEX_PROOF_INVALID",
        ),
        (
            "a residual id claimed present with the lineage's proof",
            {
                "residual": (
                    "r-1",
                    IndexClaim(
                        "presence",
                        PRESENT.proof,
                        {
                            "kind": "residual",
                            "lineageId": LINEAGE,
                            "residualId": "r-1",
                            "value": {"seq": 0, "recordHash": "a" * 64},
                        },
                    ),
                )
            },
            "INDEX_PROOF_INVALID",
        ),
    ],
)
def test_each_refusal(case: str, changes: dict[str, object], refusal: str) -> None:
    found = _chain(**changes)
    assert (found.kind, found.refusal) == ("REFUSED", refusal), case
    assert found.lineage is None and found.residual is None and found.checkpoint is None


def test_the_clock_and_the_maximum_age_must_be_whole_seconds() -> None:
    with pytest.raises(InvalidInputError):
        _chain(max_age_seconds=0)
    with pytest.raises(InvalidInputError):
        _chain(now_seconds=1.5)
    with pytest.raises(InvalidInputError):
        freshness_policy(UNWITNESSED.text, 0)


# --- deciding a record against the chain --------------------------------------------------------

HEAD = ENTRY["value"]  # treeSize 4 in lineage-3
ORIGIN = f"{LOG['logKeyName']}/{LINEAGE}"
AT_HEAD = Checkpoint(ORIGIN, HEAD["treeSize"], bytes.fromhex(HEAD["rootHash"]))
PROVEN = _chain()


def _record(seq: int, residual: str = "r-1", record_hash: str = "b" * 64) -> dict[str, object]:
    return {"seq": seq, "recordHash": record_hash, "residualId": residual}


def test_a_record_in_the_indexed_head_is_proven_and_one_past_it_awaits_integration() -> None:
    proven = decide_record_freshness(PROVEN, AT_HEAD, _record(3), latest=True, residual_asked=False, consistency=None)
    assert (proven.state, proven.checkpoint_size, proven.verdict) == ("PROVEN", 3, None)
    later = Checkpoint(ORIGIN, 5, b"\5" * 32)
    # Past the head: consistency from the indexed head to the answer is checked (here it fails: no proof).
    assert (
        decide_record_freshness(PROVEN, later, _record(4), latest=True, residual_asked=False, consistency=None).state
        == "INCONSISTENT"
    )


def test_an_older_latest_answer_is_not_newest_and_an_older_seq_is_checked_for_consistency() -> None:
    older = Checkpoint(ORIGIN, 2, b"\2" * 32)
    replay = decide_record_freshness(PROVEN, older, _record(1), latest=True, residual_asked=False, consistency=[])
    assert (replay.state, replay.verdict) == ("NOT_NEWEST", "UNVERIFIED_TAMPER_RISK")
    fork = decide_record_freshness(
        PROVEN, older, _record(1), latest=False, residual_asked=False, consistency=["00" * 32]
    )
    assert (fork.state, fork.verdict) == ("INCONSISTENT", "LINEAGE_BROKEN")
    same_size_other_root = Checkpoint(ORIGIN, 4, b"\4" * 32)
    assert (
        decide_record_freshness(
            PROVEN, same_size_other_root, _record(3), latest=True, residual_asked=False, consistency=None
        ).state
        == "INCONSISTENT"
    )


def test_a_residual_id_mapped_elsewhere_or_missing_under_the_head_is_inconsistent() -> None:
    mapped = dataclasses.replace(PROVEN, residual={"seq": 1, "recordHash": "c" * 64})
    twice = decide_record_freshness(mapped, AT_HEAD, _record(3), latest=False, residual_asked=True, consistency=None)
    assert (twice.state, twice.verdict) == ("INCONSISTENT", "LINEAGE_BROKEN")
    same = decide_record_freshness(
        mapped, AT_HEAD, _record(1, record_hash="c" * 64), latest=False, residual_asked=True, consistency=None
    )
    assert same.state == "PROVEN"
    absent = dataclasses.replace(PROVEN, kind="ABSENT", absent="residual")
    hidden = decide_record_freshness(absent, AT_HEAD, _record(2), latest=False, residual_asked=True, consistency=None)
    assert hidden.state == "INCONSISTENT"


def test_refused_and_unpublished_chains() -> None:
    refused = _chain(inclusion=[])
    decided = decide_record_freshness(refused, AT_HEAD, _record(3), latest=True, residual_asked=False, consistency=None)
    assert (decided.state, decided.checkpoint_size, decided.verdict) == ("REFUSED", None, "UNVERIFIED_TAMPER_RISK")
    unpublished = DeploymentChain("UNPUBLISHED", reason="nothing published")
    assert (
        decide_record_freshness(
            unpublished, AT_HEAD, _record(3), latest=True, residual_asked=False, consistency=None
        ).state
        == "SEALED_AWAITING_INTEGRATION"
    )
    no_lineage = dataclasses.replace(PROVEN, kind="ABSENT", absent="lineage", lineage=None)
    assert (
        decide_record_freshness(
            no_lineage, AT_HEAD, _record(0), latest=True, residual_asked=False, consistency=None
        ).state
        == "SEALED_AWAITING_INTEGRATION"
    )


def test_absence_is_proven_only_by_the_index() -> None:
    absent = dataclasses.replace(PROVEN, kind="ABSENT", absent="residual")
    decided = decide_absence(absent, residual_id="r-9")
    assert decided is not None and (decided.state, decided.checkpoint_size) == ("ABSENT", 3)
    mapped = dataclasses.replace(PROVEN, residual={"seq": 1, "recordHash": "c" * 64})
    hidden = decide_absence(mapped, residual_id="r-1")
    assert hidden is not None and (hidden.state, hidden.verdict) == ("INCONSISTENT", "UNVERIFIED_TAMPER_RISK")
    covered = decide_absence(PROVEN, seq=3)
    assert covered is not None and covered.state == "INCONSISTENT"
    assert decide_absence(PROVEN, seq=4) is None
    assert decide_absence(DeploymentChain("UNPUBLISHED"), residual_id="r-9") is None
    refused = decide_absence(_chain(inclusion=[]), residual_id="r-9")
    assert refused is not None and (refused.state, refused.verdict) == ("REFUSED", "UNVERIFIED_TAMPER_RISK")
    no_lineage = dataclasses.replace(PROVEN, kind="ABSENT", absent="lineage", lineage=None)
    gone = decide_absence(no_lineage, seq=0)
    assert gone is not None and gone.state == "ABSENT"


def test_the_json_form_of_the_vector_proof_reads_too() -> None:
    from reseal.index import index_proof_to_json

    as_json = index_proof_to_json(decode_index_proof(bytes.fromhex(CHAIN["indexProofHex"])))
    assert index_proof_from_json(as_json) == decode_index_proof(bytes.fromhex(CHAIN["indexProofHex"]))
    assert _chain(lineage=IndexClaim("presence", as_json, ENTRY)).kind == "PROVEN"
