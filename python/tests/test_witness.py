"""Witness cosignatures and tlog-policy against test/vectors/witness.json (docs/witness.md)."""

from __future__ import annotations

import base64

import pytest
from conftest import vectors

from reseal import (
    Checkpoint,
    Ed25519Cosigner,
    Ed25519NoteSigner,
    InvalidInputError,
    PolicyFormatError,
    check_policy,
    cosignature_message,
    format_cosigner_key,
    parse_cosigner_key,
    parse_policy,
    parse_verifier_key,
    quorum_met,
    sign_checkpoint,
    verify_cosignature,
)

WITNESS = vectors("witness.json")
COSIG = WITNESS["cosignature"]
BODY = COSIG["checkpointBody"]
T = COSIG["timestamp"]
LOG_SIGNER = Ed25519NoteSigner(WITNESS["log"]["keyName"], bytes.fromhex(WITNESS["log"]["seedHex"]))
W1 = Ed25519Cosigner(WITNESS["witness"]["name"], bytes.fromhex(WITNESS["witness"]["seedHex"]))
W2 = Ed25519Cosigner("reseal/test-witness-2", bytes(range(0x40, 0x60)))
W3 = Ed25519Cosigner("reseal/test-witness-3", bytes(range(0x60, 0x80)))
HOUR = 3600


def log_note() -> str:
    request = WITNESS["addCheckpoint"]["request"]
    return str(request[request.index("\n\n") + 2 :])


def cosigned(*lines: str) -> str:
    return log_note() + "".join(lines)


def test_the_cosigner_key_vector() -> None:
    key = parse_cosigner_key(WITNESS["witness"]["vkey"])
    assert key.name == WITNESS["witness"]["name"]
    assert key.public_key.hex() == WITNESS["witness"]["publicKeyHex"]
    assert key.key_id.hex() == WITNESS["witness"]["keyIdHex"]
    assert format_cosigner_key(key) == WITNESS["witness"]["vkey"]
    assert W1.key == key
    assert parse_verifier_key(WITNESS["log"]["vkey"]) == LOG_SIGNER.verifier_key


def test_the_cosignature_vector() -> None:
    assert cosignature_message(BODY, T) == COSIG["signedMessage"].encode()
    line = W1.cosign(BODY, T)
    assert line == COSIG["line"]
    assert line == WITNESS["addCheckpoint"]["response"]
    blob = base64.b64decode(line.split(" ")[2])
    assert blob[4:].hex() == COSIG["signatureHex"]
    assert verify_cosignature(BODY, line, W1.key) == T


def test_the_add_checkpoint_note_is_the_log_keys_signature_of_the_body() -> None:
    assert log_note() == sign_checkpoint(
        Checkpoint("reseal/test-stack", 7, base64.b64decode(BODY.split("\n")[2])), LOG_SIGNER
    )


def test_every_bit_flip_of_a_cosignature_is_refused() -> None:
    line = COSIG["line"]
    name, encoded = line[2:-1].split(" ")
    blob = base64.b64decode(encoded)
    for i in range(len(blob) * 8):
        flipped = bytearray(blob)
        flipped[i // 8] ^= 0x80 >> (i % 8)
        forged = f"\u2014 {name} {base64.b64encode(bytes(flipped)).decode()}\n"
        assert verify_cosignature(BODY, forged, W1.key) is None, f"bit {i}"
    for i in range(len(BODY.encode()) * 8):
        body = bytearray(BODY.encode())
        body[i // 8] ^= 0x80 >> (i % 8)
        assert verify_cosignature(bytes(body).decode("latin1"), line, W1.key) is None, f"body bit {i}"


def test_a_cosignature_counts_only_for_its_own_key_and_type() -> None:
    assert verify_cosignature(BODY, COSIG["line"], W2.key) is None
    assert verify_cosignature(BODY, COSIG["line"].replace("test-witness", "test-witnesz"), W1.key) is None
    # A note signature (type 0x01) by the witness's key is not a cosignature, and a log key is no cosigner key.
    with pytest.raises(InvalidInputError, match="signature type 1"):
        parse_cosigner_key(WITNESS["log"]["vkey"])
    with pytest.raises(InvalidInputError):
        parse_verifier_key(WITNESS["witness"]["vkey"])
    assert verify_cosignature(BODY, "not a line", W1.key) is None


def test_the_vector_policy_accepts_the_vector_checkpoint_until_its_cosignature_ages_out() -> None:
    policy = parse_policy(WITNESS["policy"])
    assert [w.name for w in policy.witnesses] == ["w1"]
    note = cosigned(COSIG["line"])
    at_limit = check_policy(note, policy, max_age_seconds=HOUR, now_seconds=T + HOUR)
    assert at_limit.accepted
    assert at_limit.witnesses == (("w1", T),)
    assert (at_limit.quorum_time, at_limit.fresh_until) == (T, T + HOUR)
    assert at_limit.checkpoint is not None and at_limit.checkpoint.size == 7
    assert check_policy(note, policy, max_age_seconds=HOUR, now_seconds=T + HOUR + 1).verdict == "QUORUM_STALE"
    assert check_policy(note, policy, max_age_seconds=HOUR, now_seconds=T - 60).accepted
    assert check_policy(note, policy, max_age_seconds=HOUR, now_seconds=T - 61).verdict == "QUORUM_STALE"
    assert check_policy(log_note(), policy, max_age_seconds=HOUR, now_seconds=T).verdict == "QUORUM_NOT_MET"


def test_refusals_of_the_policy_check() -> None:
    policy = parse_policy(WITNESS["policy"])
    name, encoded = COSIG["line"][2:-1].split(" ")
    blob = bytearray(base64.b64decode(encoded))
    blob[-1] ^= 1
    forged = f"\u2014 {name} {base64.b64encode(bytes(blob)).decode()}\n"
    # A forged line by a policy witness refuses the note even next to a valid one.
    result = check_policy(cosigned(COSIG["line"], forged), policy, max_age_seconds=HOUR, now_seconds=T)
    assert result.verdict == "FORGED_COSIGNATURE"
    other_log = Ed25519NoteSigner("reseal/other-stack", bytes(32))
    note = sign_checkpoint(Checkpoint("reseal/other-stack", 7, bytes(32)), other_log)
    assert check_policy(note, policy, max_age_seconds=HOUR, now_seconds=T).verdict == "UNKNOWN_LOG"
    impostor = Ed25519NoteSigner(WITNESS["log"]["keyName"], bytes(32))
    body = BODY.split("\n")
    note = sign_checkpoint(Checkpoint(body[0], int(body[1]), base64.b64decode(body[2])), impostor)
    assert check_policy(note + COSIG["line"], policy, max_age_seconds=HOUR, now_seconds=T).verdict == (
        "LOG_SIGNATURE_INVALID"
    )
    # Lines by keys the policy does not name are ignored.
    unknown = W2.cosign(BODY, T)
    assert check_policy(cosigned(unknown, COSIG["line"]), policy, max_age_seconds=HOUR, now_seconds=T).accepted
    with pytest.raises(InvalidInputError, match="maxAgeSeconds"):
        check_policy(cosigned(COSIG["line"]), policy, max_age_seconds=0, now_seconds=T)


def group_policy(threshold: str) -> str:
    return (
        f"log {WITNESS['log']['vkey']}\n"
        f"witness a {format_cosigner_key(W1.key)} https://a.example/\n"
        f"witness b {format_cosigner_key(W2.key)}\n"
        f"witness c {format_cosigner_key(W3.key)}\n"
        "# two of three\n"
        f"group g {threshold} a b c\n"
        "quorum g\n"
    )


def test_a_two_of_three_group_dates_the_quorum_by_the_oldest_cosignature_it_needs() -> None:
    policy = parse_policy(group_policy("2"))
    assert policy.witnesses[0].url == "https://a.example/"
    note = cosigned(W1.cosign(BODY, T), W2.cosign(BODY, T - 100), W3.cosign(BODY, T - 5000))
    result = check_policy(note, policy, max_age_seconds=HOUR, now_seconds=T)
    assert result.accepted
    assert result.quorum_time == T - 100
    assert result.witnesses == (("a", T), ("b", T - 100))
    assert check_policy(note, policy, max_age_seconds=HOUR, now_seconds=T + HOUR - 99).verdict == "QUORUM_STALE"
    one = cosigned(W1.cosign(BODY, T))
    assert check_policy(one, policy, max_age_seconds=HOUR, now_seconds=T).verdict == "QUORUM_NOT_MET"
    all_of = parse_policy(group_policy("all"))
    assert check_policy(note, all_of, max_age_seconds=2 * HOUR, now_seconds=T).quorum_time == T - 5000
    assert quorum_met(all_of.quorum, {"a", "b", "c"}) and not quorum_met(all_of.quorum, {"a", "b"})


def test_quorum_none_makes_no_freshness_statement() -> None:
    policy = parse_policy(f"log {WITNESS['log']['vkey']}\nquorum none\n")
    result = check_policy(log_note(), policy, max_age_seconds=1, now_seconds=T * 2)
    assert result.accepted and result.quorum_time is None and result.fresh_until is None


LOG_LINE = f"log {WITNESS['log']['vkey']}\n"
W_LINE = f"witness w1 {WITNESS['witness']['vkey']}\n"


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        (LOG_LINE + W_LINE, "", "no quorum line"),
        (LOG_LINE + W_LINE + "quorum w1\r\n", "line 3", "control character"),
        (LOG_LINE + "frobnicate x\nquorum none\n", "line 2", "unknown keyword"),
        (f"log {WITNESS['witness']['vkey']}\nquorum none\n", "line 1", "log vkey"),
        (LOG_LINE + f"witness w1 {WITNESS['log']['vkey']}\nquorum none\n", "line 2", "witness vkey"),
        (LOG_LINE + LOG_LINE + "quorum none\n", "line 2", "duplicate log key"),
        (LOG_LINE + W_LINE + W_LINE.replace("w1", "w2") + "quorum none\n", "line 3", "duplicate witness key"),
        (LOG_LINE + W_LINE + "group w1 any w1\nquorum none\n", "line 3", "already defined"),
        (LOG_LINE + "quorum w1\n" + W_LINE, "line 2", "not defined above"),
        (LOG_LINE + W_LINE + "group g any none\nquorum g\n", "line 3", '"none"'),
        (LOG_LINE + W_LINE + "group g any w1 w1\nquorum g\n", "line 3", "listed twice"),
        (LOG_LINE + W_LINE + "group g 2 w1\nquorum g\n", "line 3", "threshold"),
        (LOG_LINE + W_LINE + "group g 0 w1\nquorum g\n", "line 3", "threshold"),
        (LOG_LINE + W_LINE + "quorum w1\nquorum w1\n", "line 4", "second quorum"),
        ("# only a comment\n" + "x" * (64 * 1024), "", "exceeds"),
    ],
)
def test_malformed_policies_are_refused_naming_the_line(text: str, where: str, message: str) -> None:
    with pytest.raises(PolicyFormatError, match=message) as caught:
        parse_policy(text)
    assert caught.value.issues[0].path == where


def test_tabs_comments_and_blank_lines_are_read() -> None:
    text = f"# policy\n\nlog\t{WITNESS['log']['vkey']}\n  witness  w1\t{WITNESS['witness']['vkey']}\nquorum w1"
    assert parse_policy(text).quorum.name == "w1"
