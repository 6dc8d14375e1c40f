"""The verifiable log against test/vectors/log.json (docs/verifiable-log.md, "Vectors")."""

from __future__ import annotations

import base64

import pytest
from conftest import vectors

from reseal import (
    EMPTY_ROOT,
    Checkpoint,
    CheckpointFormatError,
    CheckpointOriginMismatchError,
    Ed25519NoteSigner,
    InvalidInputError,
    NoteFormatError,
    NoteVerificationError,
    checkpoint_body,
    format_verifier_key,
    leaf_hash,
    merkle_tree_hash,
    open_checkpoint,
    parse_checkpoint_body,
    parse_verifier_key,
    sign_checkpoint,
    sign_note,
    verify_consistency,
    verify_inclusion,
    verify_note,
)

LOG = vectors("log.json")
b64 = base64.b64decode


def test_rfc9162_reference_tree_roots_and_proofs() -> None:
    tree = LOG["rfc9162"]
    leaves = [bytes.fromhex(h) for h in tree["leavesHex"]]
    assert [merkle_tree_hash(leaves[:n]).hex() for n in range(len(tree["rootsHex"]))] == tree["rootsHex"]
    assert merkle_tree_hash([]) == EMPTY_ROOT
    for case in tree["inclusion"]:
        proof = [bytes.fromhex(h) for h in case["proofHex"]]
        root = bytes.fromhex(tree["rootsHex"][case["size"]])
        assert verify_inclusion(case["index"], case["size"], leaf_hash(leaves[case["index"]]), proof, root)
    for case in tree["consistency"]:
        proof = [bytes.fromhex(h) for h in case["proofHex"]]
        root1, root2 = (bytes.fromhex(tree["rootsHex"][case[k]]) for k in ("size1", "size2"))
        assert verify_consistency(case["size1"], case["size2"], root1, root2, proof)


PROBES = LOG["rfc9162Probes"]


def test_probes_differ_from_upstream_only_where_a_deviation_says_why() -> None:
    probes = PROBES["inclusion"] + PROBES["consistency"]
    assert len(PROBES["inclusion"]) > 90 and len(PROBES["consistency"]) > 90
    assert all(p["resealVerifies"] == (not p["wantErr"]) for p in probes if "deviation" not in p)
    assert len([p for p in probes if "deviation" in p]) == 1


@pytest.mark.parametrize("probe", PROBES["inclusion"], ids=[p["file"] for p in PROBES["inclusion"]])
def test_inclusion_probe(probe: dict) -> None:
    verdict = verify_inclusion(
        int(probe["leafIdx"]),
        int(probe["treeSize"]),
        b64(probe["leafHash"]),
        [b64(p) for p in probe["proof"]],
        b64(probe["root"]),
    )
    assert verdict == probe["resealVerifies"]


@pytest.mark.parametrize("probe", PROBES["consistency"], ids=[p["file"] for p in PROBES["consistency"]])
def test_consistency_probe(probe: dict) -> None:
    verdict = verify_consistency(
        int(probe["size1"]),
        int(probe["size2"]),
        b64(probe["root1"]),
        b64(probe["root2"]),
        [b64(p) for p in probe["proof"]],
    )
    assert verdict == probe["resealVerifies"]


NOTE = LOG["signedNote"]


def test_go_signer_key_signs_exactly_the_go_note() -> None:
    material = b64(NOTE["signerKey"].split("+", 4)[4])
    assert material[0] == 1
    signer = Ed25519NoteSigner("PeterNeumann", material[1:])
    assert format_verifier_key(signer.verifier_key) == NOTE["verifierKeys"]["PeterNeumann"]
    assert sign_note(NOTE["text"], signer) == NOTE["signedNote"]


def test_notes_verify_and_foreign_signatures_are_ignored() -> None:
    peter = parse_verifier_key(NOTE["verifierKeys"]["PeterNeumann"])
    enoch = parse_verifier_key(NOTE["verifierKeys"]["EnochRoot"])
    peter_line, enoch_line = NOTE["signatureLines"]["PeterNeumann"], NOTE["signatureLines"]["EnochRoot"]
    assert verify_note(NOTE["signedNote"], peter) == NOTE["text"]
    both = f"{NOTE['text']}\n{peter_line}{enoch_line}"
    assert verify_note(both, peter) == verify_note(both, enoch) == NOTE["text"]
    with pytest.raises(NoteVerificationError, match="no signature line by this key"):
        verify_note(NOTE["signedNote"], enoch)
    longer = f"{NOTE['text']}\n{peter_line[:60]}ABCD{peter_line[60:]}"
    with pytest.raises(NoteVerificationError, match="does not verify"):
        verify_note(longer, peter)
    with pytest.raises(NoteVerificationError, match="no signature line by this key"):
        verify_note(f"{NOTE['text']}\n{peter_line.replace('x08g', 'xxxx')}", peter)


def test_bad_keys_and_malformed_notes_are_refused() -> None:
    peter = parse_verifier_key(NOTE["verifierKeys"]["PeterNeumann"])
    for key in NOTE["badVerifierKeys"]:
        with pytest.raises(InvalidInputError):
            parse_verifier_key(key)
    for bad in NOTE["malformedNotes"]:
        with pytest.raises(NoteFormatError):
            verify_note(bad, peter)
    with pytest.raises(NoteFormatError):
        verify_note(f"{NOTE['text']}\n{NOTE['signatureLines']['PeterNeumann'] * 101}", peter)


def test_c2sp_example() -> None:
    example = NOTE["example"]
    assert verify_note(example["signedNote"], parse_verifier_key(example["verifierKey"])) == example["text"]


RESEAL = LOG["reseal"]


def test_reseal_tree_and_signed_checkpoint() -> None:
    leaves = [bytes.fromhex(h) for h in RESEAL["leavesHex"]]
    assert [leaf_hash(x).hex() for x in leaves] == RESEAL["leafHashesHex"]
    assert [merkle_tree_hash(leaves[:n]).hex() for n in range(len(RESEAL["rootsHex"]))] == RESEAL["rootsHex"]
    for case in RESEAL["inclusion"]:
        proof = [bytes.fromhex(h) for h in case["proofHex"]]
        root = merkle_tree_hash(leaves[: case["size"]])
        assert verify_inclusion(case["index"], case["size"], leaf_hash(leaves[case["index"]]), proof, root)
    for case in RESEAL["consistency"]:
        proof = [bytes.fromhex(h) for h in case["proofHex"]]
        root1, root2 = merkle_tree_hash(leaves[: case["size1"]]), merkle_tree_hash(leaves[: case["size2"]])
        assert verify_consistency(case["size1"], case["size2"], root1, root2, proof)
        assert not verify_consistency(case["size1"], case["size2"], root2, root1, proof)
    vector = RESEAL["checkpoint"]
    signer = Ed25519NoteSigner(vector["keyName"], bytes.fromhex(vector["seedHex"]))
    assert signer.public_key.hex() == vector["publicKeyHex"]
    assert signer.verifier_key.key_hash.hex() == vector["keyHashHex"]
    assert format_verifier_key(signer.verifier_key) == vector["verifierKey"]
    checkpoint = Checkpoint(vector["origin"], vector["size"], bytes.fromhex(vector["rootHex"]))
    assert checkpoint_body(checkpoint) == vector["body"]
    assert parse_checkpoint_body(vector["body"]) == checkpoint
    assert sign_checkpoint(checkpoint, signer) == vector["signedNote"]
    key = parse_verifier_key(vector["verifierKey"])
    opened = open_checkpoint(vector["signedNote"], key, vector["origin"])
    assert (opened.size, opened.root_hash, opened.note) == (7, checkpoint.root_hash, vector["signedNote"])
    with pytest.raises(CheckpointOriginMismatchError):
        open_checkpoint(vector["signedNote"], key, "reseal/test-stack/lineage-2")


@pytest.mark.parametrize(
    "body",
    ["o\n7\n", "o\n07\nXRpYn65uG00rISuQl2FZSIlX3cLi4OxA2OeotfvdNCQ=\n", "o\n7\nXRpYn65uG00rISuQl2FZSIlX3cLi4OxA2OeotfvdNCQ=\next\n",
     "o\n9007199254740992\nXRpYn65uG00rISuQl2FZSIlX3cLi4OxA2OeotfvdNCQ=\n", "o\n7\nXRpYn65uG00rISuQl2FZSIlX3cLi4OxA2OeotfvdNCQ\n"],
)  # fmt: skip
def test_checkpoint_bodies_are_strict(body: str) -> None:
    with pytest.raises(CheckpointFormatError):
        parse_checkpoint_body(body)
