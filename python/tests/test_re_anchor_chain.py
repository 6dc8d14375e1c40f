"""The Python reader follows an operator's re-anchor (docs/deployment-log.md, "Re-anchor", "What
clients see"): over test/vectors/re-anchor.json, the statement is verified with the log key and
the re-anchored checkpoint's last leaf is checked as a re-anchored leaf of it; over a re-anchored
log built here on real index roots, the chain reader proves a lineage through it and every
finding carries the re-anchor notice, while a statement removed, edited or not signed by the log
is refused, never read as a plain history."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
import test_deployment_chain_reader as fixtures
import test_index_tree_heads as headless
from conftest import vectors

from reseal import (
    ReAnchorNotice,
    check_kept_deployment_checkpoint,
    re_anchor_statement_hash,
    re_anchored_leaf,
    verify_re_anchor_statement,
)
from reseal.deployment_chain import IndexClaim, default_policy_text, deployment_leaf, verify_deployment_chain
from reseal.index import IndexProof
from reseal.item_layout import deployment_leaf_sk, node_seq
from reseal.log import (
    Checkpoint,
    Ed25519NoteSigner,
    leaf_hash,
    merkle_tree_hash,
    parse_verifier_key,
    sign_checkpoint,
    sign_note,
)
from reseal.witness import parse_policy, quorum_cosigned_at

VECTORS: dict[str, Any] = vectors("re-anchor.json")
LOG_KEY = fixtures.SIGNER.verifier_key
POLICY = parse_policy(default_policy_text(LOG_KEY))
NOW = fixtures.NOW_MS // 1000
s = fixtures.s


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


# --- the vector ------------------------------------------------------------------------------


def test_the_vector_statement_verifies_with_the_log_key_and_names_what_was_lost() -> None:
    assert LOG_KEY.public_key.hex() == VECTORS["logPublicKeyHex"]  # the log test seed signed the vector
    verified = verify_re_anchor_statement(VECTORS["statementNote"], VECTORS["logKeyName"], [LOG_KEY])
    assert not isinstance(verified, str), verified
    statement, notice = verified
    assert statement.restored == (VECTORS["restored"]["size"], bytes.fromhex(VECTORS["restored"]["rootHex"]))
    assert statement.lost == (VECTORS["lost"]["size"], bytes.fromhex(VECTORS["lost"]["rootHex"]))
    assert (notice.lost_leaves, notice.statement_hash) == (2, VECTORS["statementHashHex"])
    assert re_anchor_statement_hash(VECTORS["statementText"]).hex() == VECTORS["statementHashHex"]
    # The operator's note alone (recovery signature, no log signature) is not the log's statement.
    assert verify_re_anchor_statement(VECTORS["operatorNote"], VECTORS["logKeyName"], [LOG_KEY]) == (
        "not signed by the log key"
    )
    recovery = parse_verifier_key(VECTORS["recoveryVkey"])
    assert isinstance(verify_re_anchor_statement(VECTORS["statementNote"], "reseal/other", [LOG_KEY]), str)
    edited = VECTORS["statementNote"].replace("reason ", "reason  ", 1)
    assert isinstance(verify_re_anchor_statement(edited, VECTORS["logKeyName"], [LOG_KEY, recovery]), str)


def test_the_vector_re_anchored_leaves_are_recomputed() -> None:
    digest = bytes.fromhex(VECTORS["statementHashHex"])
    for step in (VECTORS["reAnchorLeaf"], VECTORS["nextLeaf"]):
        assert re_anchored_leaf(bytes.fromhex(step["indexRootHex"]), digest).hex() == step["leafHex"]


def test_the_vector_checkpoint_s_last_leaf_is_re_anchored_by_the_statement() -> None:
    step = VECTORS["reAnchorLeaf"]
    # Leaf 2 of 3: its inclusion proof is the restored tree's root.
    base: dict[str, Any] = {
        "note": step["signedCheckpoint"],
        "policy": POLICY,
        "max_age_seconds": 180,
        "now_seconds": NOW,
        "index_root": bytes.fromhex(step["indexRootHex"]),
        "inclusion": [bytes.fromhex(VECTORS["restored"]["rootHex"])],
        "lineage_id": "lineage-a",
        # The vector's index roots are no real index: any claim fails, past the anchor.
        "lineage": IndexClaim("absence", IndexProof("absence", (), None)),
    }
    past_the_anchor = verify_deployment_chain(**base, re_anchor=VECTORS["statementNote"])
    assert past_the_anchor.refusal == "INDEX_PROOF_INVALID", past_the_anchor.reason
    assert verify_deployment_chain(**base).refusal == "LEAF_NOT_LAST"  # the statement withheld
    unsigned = verify_deployment_chain(**base, re_anchor=VECTORS["operatorNote"])
    assert (unsigned.refusal, "not signed by the log key" in unsigned.reason) == ("RE_ANCHOR_INVALID", True)


# --- a re-anchored log over real index roots ---------------------------------------------------


def statement_note(restored: tuple[int, bytes], lost: tuple[int, bytes], signer: Ed25519NoteSigner) -> str:
    text = (
        f"reseal/v1/re-anchor\norigin reseal/test-stack\nrestored {restored[0]} {b64(restored[1])}\n"
        f"lost {lost[0]} {b64(lost[1])}\ntime 1767225600\nreason table restored from a point-in-time backup\n"
    )
    return sign_note(text, signer)


def re_anchored_items(
    restored_roots: list[bytes], later_roots: list[bytes], signer: Ed25519NoteSigner = fixtures.SIGNER
) -> list[dict[str, Any]]:
    """The deployment log restored to ``restored_roots``, re-anchored (its last index root again,
    as the re-anchor leaf) and extended by ``later_roots``: leaf items with their nodes and a head
    holding the statement, as the integrator stores them."""
    plain = [deployment_leaf(r) for r in restored_roots]
    restored = (len(plain), merkle_tree_hash(plain))
    note = statement_note(restored, (restored[0] + 2, bytes(32)), signer)
    text = note.split("\n\n")[0] + "\n"
    digest = re_anchor_statement_hash(text)
    roots = [*restored_roots, restored_roots[-1], *later_roots]
    leaves = [*plain, *(re_anchored_leaf(r, digest) for r in roots[len(plain) :])]
    items = []
    for i, root in enumerate(roots):
        nodes, level = [], 0
        while (i + 1) % (2**level) == 0:
            j = (i + 1) // 2**level - 1
            nodes.append(merkle_tree_hash(leaves[j * 2**level : (j + 1) * 2**level]).hex())
            assert node_seq(level, j) == i
            level += 1
        items.append(
            {
                "pk": s("DEPLOYMENT#log"),
                "sk": s(deployment_leaf_sk(i)),
                "indexRoot": s(root.hex()),
                "nodes": s(json.dumps(nodes)),
            }
        )
    checkpoint = sign_checkpoint(Checkpoint("reseal/test-stack", len(roots), merkle_tree_hash(leaves)), fixtures.SIGNER)
    head = {
        "pk": s("DEPLOYMENT#log"),
        "sk": s("HEAD"),
        "size": {"N": str(len(roots))},
        "checkpoint": s(checkpoint),
        "published": s(checkpoint),
        "frontier": s("[]"),
        "indexRoot": s(roots[-1].hex()),
        "reAnchor": s(note),
    }
    assert leaf_hash(leaves[-1])  # the last leaf is a re-anchored one
    return [*items, head]


def re_anchored_log() -> list[dict[str, Any]]:
    return [*fixtures.NODES, *fixtures.EARLIER_NODES, *re_anchored_items(fixtures.ROOTS[:2], [fixtures.ROOT])]


def test_the_reader_proves_a_lineage_through_a_re_anchored_log_and_shows_the_re_anchor() -> None:
    reader, _ = fixtures.reader(re_anchored_log())
    chain = reader.read("lineage-a", "r-0")
    assert chain.kind == "PROVEN", chain.reason
    assert chain.lineage == fixtures.ENTRIES[0]["value"] and chain.checkpoint is not None and chain.checkpoint.size == 4
    assert isinstance(chain.re_anchor, ReAnchorNotice)
    assert (chain.re_anchor.restored_size, chain.re_anchor.lost_size, chain.re_anchor.lost_leaves) == (2, 4, 2)
    # Before the re-anchor the same reader still reads a plain history, with no notice.
    plain = fixtures.reader(fixtures.honest())[0].read("lineage-a")
    assert plain.kind == "PROVEN" and plain.re_anchor is None


@pytest.mark.parametrize(
    ("tamper", "refusal"),
    [("removed", "LEAF_NOT_LAST"), ("edited", "RE_ANCHOR_INVALID"), ("another signer", "RE_ANCHOR_INVALID")],
)
def test_a_statement_removed_edited_or_not_signed_by_the_log_is_refused(tamper: str, refusal: str) -> None:
    items = re_anchored_log()
    head = items[-1]
    if tamper == "removed":
        del head["reAnchor"]
    elif tamper == "edited":
        head["reAnchor"] = s(head["reAnchor"]["S"].replace("restored 2", "restored 1", 1))
    else:
        other = Ed25519NoteSigner("reseal/test-stack", bytes(range(1, 33)))
        head["reAnchor"] = s(re_anchored_items(fixtures.ROOTS[:2], [fixtures.ROOT], other)[-1]["reAnchor"]["S"])
    chain = fixtures.reader(items)[0].read("lineage-a")
    assert (chain.kind, chain.refusal) == ("REFUSED", refusal), chain.reason


def test_a_recall_through_a_re_anchored_log_carries_the_re_anchor_in_its_freshness(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lineage_b = [fixtures.lineage_entry("lineage-b", 1)]
    entries = [*lineage_b, headless.lineage_entry(2), *map(headless.residual_entry, range(2))]
    first, first_nodes = fixtures.index_items(lineage_b)
    root, nodes = fixtures.index_items(entries)
    items = [*headless.lineage_items(2), *first_nodes, *nodes, *re_anchored_items([first], [root])]
    proven = headless.recall(items, 1, monkeypatch)
    assert proven.end == "TRIAGED", proven.reason
    assert proven.freshness is not None and proven.freshness.state == "PROVEN"
    assert proven.freshness.re_anchor is not None and proven.freshness.re_anchor.lost_size == 3


def kept(size: int, root: bytes, signer: Ed25519NoteSigner = fixtures.SIGNER) -> str:
    return sign_checkpoint(Checkpoint("reseal/test-stack", size, root), signer)


def test_a_kept_checkpoint_of_the_lost_history_is_explained_by_the_re_anchor() -> None:
    reader, _ = fixtures.reader(re_anchored_log())
    # The old history's checkpoint at 3: past the restored head (2), within the lost one (4).
    explained = reader.compare_kept(kept(3, b"\x07" * 32))
    assert not isinstance(explained, str) and explained.kind == "EXPLAINED_BY_RE_ANCHOR", explained
    assert explained.re_anchor is not None and explained.re_anchor.lost_size == 4
    assert not isinstance(at_lost := reader.compare_kept(kept(4, bytes(32))), str)
    assert at_lost.kind == "EXPLAINED_BY_RE_ANCHOR"
    # The lost size with another root than the statement names: nothing accounts for it.
    forked = reader.compare_kept(kept(4, b"\x09" * 32))
    assert not isinstance(forked, str) and forked.kind == "FORK", forked
    # Past it, and past the current one: the table shows an older state than the log signed.
    newer = reader.compare_kept(kept(5, b"\x07" * 32))
    assert not isinstance(newer, str) and newer.kind == "NOT_NEWEST", newer
    # The restored head itself is of the same history: proven from the table's nodes.
    restored = merkle_tree_hash([deployment_leaf(r) for r in fixtures.ROOTS[:2]])
    same = reader.compare_kept(kept(2, restored))
    assert not isinstance(same, str) and same.kind == "CONSISTENT", same
    # A note the log did not sign is nothing to compare.
    other_key = Ed25519NoteSigner("reseal/test-stack", bytes(range(1, 33)))
    assert isinstance(reader.compare_kept(kept(3, b"\x07" * 32, other_key)), str)


def test_without_a_re_anchor_another_history_is_a_fork() -> None:
    reader, _ = fixtures.reader(fixtures.honest())
    forked = reader.compare_kept(kept(2, b"\x07" * 32))
    assert not isinstance(forked, str) and forked.kind == "FORK", forked
    leaves = [deployment_leaf(r) for r in fixtures.ROOTS]
    same = reader.compare_kept(kept(2, merkle_tree_hash(leaves[:2])))
    assert not isinstance(same, str) and same.kind == "CONSISTENT", same


def test_a_kept_checkpoint_from_before_two_re_anchors_is_explained_through_the_chain_or_is_a_fork() -> None:
    # docs/deployment-log.md, "A chain of re-anchors": an earlier statement (restored 1, lost 3)
    # before the current one (restored 2, lost 4); a checkpoint of the first history at 2 lies in
    # the earlier statement's lost part only.
    earlier = statement_note((1, bytes(32)), (3, b"\x05" * 32), fixtures.SIGNER)
    items = re_anchored_log()
    items[-1]["reAnchorChain"] = s(json.dumps([earlier]))
    reader, _ = fixtures.reader(items)
    explained = reader.compare_kept(kept(2, b"\x07" * 32))
    assert not isinstance(explained, str) and explained.kind == "EXPLAINED_BY_RE_ANCHOR", explained
    assert explained.re_anchor is not None and (explained.re_anchor.restored_size, explained.re_anchor.lost_size) == (
        1,
        3,
    )
    assert len(explained.chain) == 2
    # The link deleted, or replaced by a note the log did not sign: nothing explains it.
    other = Ed25519NoteSigner("reseal/test-stack", bytes(range(1, 33)))
    for chain in (None, [statement_note((1, bytes(32)), (3, b"\x05" * 32), other)]):
        if chain is None:
            del items[-1]["reAnchorChain"]
        else:
            items[-1]["reAnchorChain"] = s(json.dumps(chain))
        forked = fixtures.reader(items)[0].compare_kept(kept(2, b"\x07" * 32))
        assert not isinstance(forked, str) and forked.kind == "FORK", forked


STATEMENT_TIME = 1767225600  # the ``time`` of :func:`statement_note`


def _notice(restored: int, lost: int) -> ReAnchorNotice:
    return ReAnchorNotice(
        restored, b64(bytes(32)), lost, b64(bytes(32)), lost - restored, STATEMENT_TIME, "r", "00", ""
    )


def test_the_size_range_alone_explains_no_kept_checkpoint_larger_than_the_current_one() -> None:
    # docs/deployment-log.md, "What clients see": restored 5, lost 9, the current history at 6; a
    # kept checkpoint of 8 is of the lost history only if its witnesses cosigned it before the
    # statement: a head of the re-anchored history put back under a newer one falls in the range too.
    notice = _notice(5, 9)
    current = Checkpoint("reseal/test-stack", 6, b"\x01" * 32)
    kept8 = Checkpoint("reseal/test-stack", 8, b"\x02" * 32)

    def kind(kept_cp: Checkpoint, time: int | None) -> str:
        return check_kept_deployment_checkpoint(kept_cp, current, notice, [], (), time).kind

    assert kind(kept8, STATEMENT_TIME - 60) == "EXPLAINED_BY_RE_ANCHOR"
    for time in (None, STATEMENT_TIME, STATEMENT_TIME + 60):
        assert kind(kept8, time) == "NOT_NEWEST"
    # At the lost size with another root: two roots only when dated before the statement.
    kept9 = Checkpoint("reseal/test-stack", 9, b"\x03" * 32)
    assert kind(kept9, STATEMENT_TIME - 60) == "FORK"
    assert kind(kept9, STATEMENT_TIME + 60) == "NOT_NEWEST"
    # No larger than the current one, and not extended by it: explained uncosigned or dated before, else a fork.
    wide = Checkpoint("reseal/test-stack", 8, b"\x04" * 32)
    kept7 = Checkpoint("reseal/test-stack", 7, b"\x05" * 32)
    for time, expected in ((None, "EXPLAINED_BY_RE_ANCHOR"), (STATEMENT_TIME - 1, "EXPLAINED_BY_RE_ANCHOR")):
        assert check_kept_deployment_checkpoint(kept7, wide, notice, [], (), time).kind == expected
    assert check_kept_deployment_checkpoint(kept7, wide, notice, [], (), STATEMENT_TIME + 1).kind == "FORK"


def test_the_reader_dates_the_kept_note_by_its_witness_cosignatures() -> None:
    items = re_anchored_log()
    head = items[-1]
    note = head["published"]["S"]
    body = note.split("\n\n")[0] + "\n"
    head["published"] = s(note + fixtures.WITNESS.cosign(body, fixtures.NOW_MS // 1000 - 5))
    reader, _ = fixtures.reader(items, fixtures.WITNESSED)
    old = kept(3, b"\x07" * 32)
    old_body = old.split("\n\n")[0] + "\n"
    before = reader.compare_kept(old + fixtures.WITNESS.cosign(old_body, STATEMENT_TIME - 60))
    assert not isinstance(before, str) and before.kind == "EXPLAINED_BY_RE_ANCHOR", before
    after = reader.compare_kept(old + fixtures.WITNESS.cosign(old_body, STATEMENT_TIME + 60))
    assert not isinstance(after, str) and after.kind == "FORK", after


def test_quorum_cosigned_at_is_the_oldest_cosignature_of_the_quorum() -> None:
    note = kept(3, b"\x07" * 32)
    body = note.split("\n\n")[0] + "\n"
    policy = fixtures.WITNESSED.policy
    twice = note + fixtures.WITNESS.cosign(body, 200) + fixtures.WITNESS.cosign(body, 100)
    assert quorum_cosigned_at(twice, policy) == 100
    assert quorum_cosigned_at(note, policy) is None
    assert quorum_cosigned_at(twice, fixtures.UNWITNESSED.policy) is None
    forged = note + fixtures.WITNESS.cosign(body, 100).replace("A", "B", 1)
    assert quorum_cosigned_at(forged, policy) is None
    assert quorum_cosigned_at("not a note", policy) is None


def test_a_statement_dated_after_the_witnesses_cosigned_its_checkpoint_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # docs/deployment-log.md, "What clients see": the statement's time is held to the witnesses'
    # clock, not only to the integrator's 5 s; the fixtures' policy is unwitnessed, so a quorum
    # cosigned the current note 3 s before the statement's time is stood in for here.
    import reseal.deployment_chain_reader as module

    reader, _ = fixtures.reader(re_anchored_log())
    statement = reader.read("lineage-a").re_anchor
    assert statement is not None
    monkeypatch.setattr(module, "quorum_cosigned_at", lambda _note, _policy: statement.time_seconds - 3)
    refused = reader.compare_kept(kept(3, b"\x07" * 32))
    assert isinstance(refused, str) and refused.startswith("RE_ANCHOR_INVALID: the re-anchor statement is dated")
    assert "3 s after the policy's witnesses had cosigned" in refused
    # The current note cosigned at the statement's time, the kept one before it: explained as before.
    kept_note = kept(3, b"\x07" * 32)
    times = {kept_note: statement.time_seconds - 3}
    monkeypatch.setattr(module, "quorum_cosigned_at", lambda note, _policy: times.get(note, statement.time_seconds))
    explained = reader.compare_kept(kept_note)
    assert not isinstance(explained, str) and explained.kind == "EXPLAINED_BY_RE_ANCHOR", explained
