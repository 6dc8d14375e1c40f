"""Authorship against test/vectors/authorship.json (docs/authorship.md): signed writes, writer,
boundary and policy digests, lineage ids, admission, and format-2 chains verified as TypeScript does."""

from __future__ import annotations

import base64
import copy
from typing import Any

import pytest
from conftest import vectors
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from reseal import (
    MAX_SIGNATURE_AGE_MS,
    MAX_SIGNATURE_FUTURE_MS,
    HashDomain,
    InvalidInputError,
    LocalHmacAnchor,
    admit_write,
    boundary_digest,
    canonical_json,
    check_record_integrity,
    lineage_id_for,
    lineage_id_matches_policy,
    parse_lineage_policy,
    parse_verifier_key,
    parse_write_request,
    policy_digest,
    request_signing_digest,
    signature_age_problem,
    signed_write_digest,
    verify_chain,
    verify_receipt,
    verify_writer_signature,
    write_signature_problem,
    writer_binding_problem,
    writer_digest,
)
from reseal import AdmissionState as State
from reseal import VerificationVerdict as V

FILE = vectors("authorship.json")
LINEAGE = FILE["lineageId"]


def anchor() -> LocalHmacAnchor:
    return LocalHmacAnchor(FILE["anchor"]["keyId"], bytes.fromhex(FILE["anchor"]["keyHex"]))


def chain() -> list[dict[str, Any]]:
    return copy.deepcopy([step["record"] for step in FILE["chain"]])


def resolve(records: list[Any]) -> list[Any]:
    return [copy.deepcopy(FILE["chain"][r]["record"]) if type(r) is int else copy.deepcopy(r) for r in records]


def test_keys_and_limits() -> None:
    for key in FILE["keys"].values():
        private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(key["seedHex"]))
        raw = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        assert base64.b64encode(raw).decode() == key["publicKey"]
    assert FILE["limits"] == {
        "maxSignatureAgeMs": MAX_SIGNATURE_AGE_MS,
        "maxSignatureFutureMs": MAX_SIGNATURE_FUTURE_MS,
    }
    assert {
        HashDomain.SIGNED_WRITE,
        HashDomain.WRITER,
        HashDomain.BOUNDARY,
        HashDomain.LINEAGE_POLICY,
    } == {"reseal/v1/signed-write", "reseal/v1/writer", "reseal/v1/boundary", "reseal/v1/lineage-policy"}


def test_policy_digests_and_lineage_ids() -> None:
    for v in FILE["policyDigests"]:
        assert parse_lineage_policy(v["policy"]) is v["policy"]
        assert canonical_json(v["policy"]) == v["canonical"]
        assert policy_digest(v["policy"]) == v["digest"]
        assert lineage_id_for(FILE["label"], v["policy"]) == v["lineageId"]
        assert lineage_id_matches_policy(v["lineageId"], v["policy"])
    for v in FILE["lineageIds"]:
        assert lineage_id_matches_policy(v["lineageId"], v["policy"]) is v["matches"], v["name"]
    for v in FILE["badLabels"]:
        with pytest.raises(InvalidInputError, match="lineage label"):
            lineage_id_for(v["label"], FILE["policyDigests"][0]["policy"])


@pytest.mark.parametrize("case", FILE["invalidPolicies"], ids=lambda c: c["name"])
def test_invalid_policies_are_refused_at_the_same_path(case: dict[str, Any]) -> None:
    with pytest.raises(InvalidInputError) as raised:
        parse_lineage_policy(case["policy"])
    assert raised.value.issues[0].path == case["issuePath"]
    with pytest.raises(InvalidInputError):
        lineage_id_for(FILE["label"], case["policy"])


def test_writer_and_boundary_digests() -> None:
    for v in FILE["writerDigests"]:
        assert canonical_json({"v": 1, **v["writer"]}) == v["canonical"]
        assert writer_digest(v["writer"]) == v["digest"]
    for v in FILE["boundaryDigests"]:
        assert boundary_digest(v["boundary"], v["declaredImmutableConstants"]) == v["digest"]


@pytest.mark.parametrize("case", FILE["signedWrites"], ids=lambda c: c["name"])
def test_signed_writes(case: dict[str, Any]) -> None:
    request = case["request"]
    assert parse_write_request(request) is request
    writer = request["writer"]
    message = request_signing_digest(request, writer)
    assert message.hex() == case["messageHex"]
    fields = {**request, **case["digests"], **writer}
    assert signed_write_digest(fields).hex() == case["messageHex"]
    assert (
        canonical_json({"v": 1, **{k: fields.get(k) for k in _SIGNED}, "supersedes": request.get("supersedes")})
        == case["signedContentCanonical"]
    )
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(FILE["keys"][case["signer"]]["seedHex"]))
    assert base64.b64encode(key.sign(message)).decode() == case["signature"] == writer["signature"]
    assert verify_writer_signature(message, writer["publicKey"], writer["signature"])
    assert write_signature_problem(request, writer["signedAtMs"] + 1000) is None
    assert "replayed" in (write_signature_problem(request, writer["signedAtMs"] + MAX_SIGNATURE_AGE_MS + 1) or "")


_SIGNED = (
    "lineageId", "residualId", "sessionId", "generationEpoch", "authority", "payloadHash", "manifestDigest",
    "variablesDigest", "boundaryDigest", "policyDigest", "keyId", "publicKey", "signedAtMs",
)  # fmt: skip


@pytest.mark.parametrize("case", FILE["editedRequests"], ids=lambda c: c["name"])
def test_a_signature_over_an_edited_request_is_refused(case: dict[str, Any]) -> None:
    request = case["request"]
    parse_write_request(request)
    message = request_signing_digest(request, request["writer"])
    assert message.hex() == case["messageHex"]
    assert not verify_writer_signature(message, request["writer"]["publicKey"], request["writer"]["signature"])
    problem = write_signature_problem(request, request["writer"]["signedAtMs"])
    assert problem is not None and "does not verify" in problem


def test_signature_age() -> None:
    for v in FILE["freshness"]:
        assert (signature_age_problem(v["signedAtMs"], v["receivedAtMs"]) is None) is v["accepted"], v["name"]


def test_bad_keys_and_signatures_never_verify() -> None:
    case = FILE["signedWrites"][0]
    message = bytes.fromhex(case["messageHex"])
    public_key, signature = case["request"]["writer"]["publicKey"], case["signature"]
    assert verify_writer_signature(message, public_key, signature)
    noncanonical = public_key[:42] + chr(ord(public_key[42]) + 1) + "="
    for key, sig in [
        (public_key, signature[:-3] + "A=="),
        (noncanonical, signature),
        (public_key[:-2], signature),
        (base64.b64encode(b"\xff" * 32).decode(), signature),
        (public_key, ""),
    ]:
        assert not verify_writer_signature(message, key, sig)


@pytest.mark.parametrize("case", FILE["admission"], ids=lambda c: c["name"])
def test_admission(case: dict[str, Any]) -> None:
    state = case["state"]
    outcome = admit_write(
        State(state["lineageId"], state["seq"], state["inForce"], state["legacyTip"]),
        case["candidate"]["publicKey"],
        case["candidate"]["policy"],
    )
    assert (outcome.admitted, outcome.refused) == (case.get("admitted"), case.get("refused"))


def test_the_chain_verifies_and_each_record_binds_its_writer() -> None:
    records = chain()
    assert [r["header"]["formatVersion"] for r in records] == [2] * len(records)
    for record in records:
        assert writer_binding_problem(record) is None
        intact = check_record_integrity(record)
        assert not hasattr(intact, "verdict"), intact
    result = verify_chain(records, LINEAGE, anchor=anchor())
    assert result.verdict == V.VERIFIED_INTACT
    assert result.head == {"seq": len(records) - 1, "recordHash": records[-1]["recordHash"]}


@pytest.mark.parametrize("case", FILE["chains"], ids=lambda c: c["name"])
def test_chains_get_the_verdicts_typescript_gives(case: dict[str, Any]) -> None:
    result = verify_chain(resolve(case["records"]), LINEAGE, anchor=anchor())
    expected = case["expected"]
    assert result.verdict == expected["verdict"]
    assert [r.verdict for r in result.records] == expected["recordVerdicts"]
    failure = expected["firstFailure"]
    if failure is None:
        assert result.first_failure is None
    else:
        assert result.first_failure is not None
        assert (result.first_failure.seq, result.first_failure.verdict, result.first_failure.reason) == (
            failure["seq"],
            failure["verdict"],
            failure["reason"],
        )


def test_a_suffix_walk_checks_admission_from_the_first_policy_it_meets() -> None:
    records = chain()
    start = {"afterSeq": 1, "afterRecordHash": records[1]["recordHash"], "generationEpoch": 2}
    assert verify_chain(records[2:], LINEAGE, anchor=anchor(), trusted_start=start).verdict == V.VERIFIED_INTACT
    # The revoked key's write after seq 3 (the revocation sets a policy the walk then knows).
    revoked = resolve(next(c for c in FILE["chains"] if "revoked key" in c["name"])["records"])
    result = verify_chain(revoked[2:], LINEAGE, anchor=anchor(), trusted_start=start)
    assert result.verdict == V.LINEAGE_BROKEN
    assert result.first_failure is not None and result.first_failure.seq == 4


def leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in leaves(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in leaves(v, (*path, i))]
    return [path]


_WRITER_PARTS = ("writer", "boundary", "declaredImmutableConstants", "policy")


@pytest.mark.parametrize(
    "path",
    [
        p
        for p in leaves(FILE["chain"][2]["record"])
        if p[0] in _WRITER_PARTS or p[-1] in ("writerDigest", "boundaryDigest", "policyDigest")
    ],
    ids=lambda p: ".".join(map(str, p)),
)
def test_a_table_writer_edit_to_any_writer_field_is_detected(path: tuple[Any, ...]) -> None:
    records = chain()
    target: Any = records[2]
    for step in path[:-1]:
        target = target[step]
    old = target[path[-1]]
    target[path[-1]] = (
        old + 1
        if type(old) is int
        else ("0" * 64 if len(old) == 64 else old[:-4] + ("AAA=" if old.endswith("=") else "AAAA"))
        if type(old) is str
        else "x"
    )
    result = verify_chain(records, LINEAGE, anchor=anchor())
    assert result.records[1].verdict == V.VERIFIED_INTACT
    assert result.records[2].verdict in (V.HASH_MISMATCH, V.LINEAGE_BROKEN), result.records[2]


def test_a_record_without_its_writer_fields_is_malformed() -> None:
    record = chain()[0]
    del record["writer"]
    failure = check_record_integrity(record)
    assert getattr(failure, "verdict", None) == V.HASH_MISMATCH
    assert "malformed record at writer" in getattr(failure, "reason", "")
    legacy = resolve(next(c for c in FILE["chains"] if "format-1" in c["name"])["records"])[0]
    legacy["policy"] = None
    assert "malformed record at <root>" in getattr(check_record_integrity(legacy), "reason", "")


def test_write_requests_need_a_writer_block() -> None:
    request = copy.deepcopy(FILE["signedWrites"][1]["request"])
    del request["writer"]
    with pytest.raises(InvalidInputError, match="at writer: required"):
        parse_write_request(request)
    request = copy.deepcopy(FILE["signedWrites"][1]["request"])
    request["writer"]["signature"] = request["writer"]["signature"][:-3] + "B=="
    with pytest.raises(InvalidInputError, match=r"writer\.signature"):
        parse_write_request(request)


def test_a_format_2_lineage_exported_by_the_typescript_core_gets_its_verdicts(ts_artifacts: dict[str, Any]) -> None:
    exported = ts_artifacts["writerBound"]
    key = LocalHmacAnchor(exported["anchorKeyId"], bytes.fromhex(exported["anchorKeyHex"]))
    for records, expected in (
        (exported["records"], exported["verdict"]),
        (exported["withStranger"], exported["withStrangerVerdict"]),
    ):
        result = verify_chain(records, exported["lineageId"], anchor=key)
        assert result.verdict == expected["verdict"]
        assert [r.verdict for r in result.records] == expected["recordVerdicts"]
        assert (result.first_failure.reason if result.first_failure else None) == expected["reason"]
    assert exported["withStrangerVerdict"]["verdict"] == V.LINEAGE_BROKEN
    log_key = parse_verifier_key(ts_artifacts["verifierKey"])
    for seq, receipt in enumerate(exported["receipts"]):
        checked = verify_receipt(receipt, log_key)
        assert checked.verdict == V.VERIFIED_INTACT, checked.reason
        assert checked.record == exported["records"][seq]
    forged = copy.deepcopy(exported["receipts"][1])
    forged["record"]["writer"]["senderId"] = "AIDASTRANGER"
    assert verify_receipt(forged, log_key).verdict == V.HASH_MISMATCH
