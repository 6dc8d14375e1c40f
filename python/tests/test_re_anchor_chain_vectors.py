"""test/vectors/re-anchor-chain.json decided by the Python package (docs/deployment-log.md,
"Re-anchor", "A chain of re-anchors"): a deployment checkpoint kept before two successive
re-anchors is explained through the head's chain of earlier statements, each verified with the
log key and linked to the next, and only when the kept note's witnesses cosigned it before the
explaining statement (``keptTimeSeconds``); a link missing, forged, dated before the one it follows
or losing nothing of the history it follows is a ``FORK``, as the TypeScript ``checkKeptDeploymentCheckpoint``
decides each case (test/unit/shared/integrator/re-anchor-chain-vectors.test.ts)."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import vectors

from reseal import check_kept_deployment_checkpoint, verify_re_anchor_chain, verify_re_anchor_statement
from reseal.item_layout import deployment_head_of
from reseal.log import Checkpoint, NoteVerifierKey, ed25519_key_hash
from reseal.re_anchor import ReAnchorNotice

VECTORS: dict[str, Any] = vectors("re-anchor-chain.json")
ORIGIN: str = VECTORS["logKeyName"]
_PUBLIC = bytes.fromhex(VECTORS["logPublicKeyHex"])
KEY = NoteVerifierKey(ORIGIN, ed25519_key_hash(ORIGIN, _PUBLIC), _PUBLIC)


def _notice(note: str) -> ReAnchorNotice:
    verified = verify_re_anchor_statement(note, ORIGIN, [KEY])
    assert not isinstance(verified, str), verified
    return verified[1]


@pytest.mark.parametrize("case", VECTORS["cases"], ids=[c["name"] for c in VECTORS["cases"]])
def test_each_case_is_decided_as_the_typescript_reader_decides_it(case: dict[str, Any]) -> None:
    current = _notice(case["reAnchor"])
    finding = check_kept_deployment_checkpoint(
        Checkpoint(ORIGIN, case["kept"]["size"], bytes.fromhex(case["kept"]["rootHex"])),
        Checkpoint(ORIGIN, VECTORS["current"]["size"], bytes.fromhex(VECTORS["current"]["rootHex"])),
        current,
        [bytes.fromhex(h) for h in case["consistency"]],
        verify_re_anchor_chain(case["reAnchorChain"], ORIGIN, [KEY]),
        case["keptTimeSeconds"],
    )
    expected = case["expected"]
    assert finding.kind == expected["kind"], finding.reason
    if finding.kind == "EXPLAINED_BY_RE_ANCHOR":
        named = _notice(VECTORS["statements"][expected["statement"]])
        assert finding.re_anchor is not None and finding.re_anchor.statement_hash == named.statement_hash
        assert len(finding.chain) == expected["chainLength"]
        assert finding.chain[-1].statement_hash == current.statement_hash


def test_the_chain_as_stored_keeps_only_log_signed_entries_from_the_last_broken_one_on() -> None:
    a, b = VECTORS["statements"]["A"], VECTORS["statements"]["B"]

    def hashes(stored: object) -> list[str]:
        return [n.statement_hash for n in verify_re_anchor_chain(stored, ORIGIN, [KEY])]

    ha, hb = _notice(a).statement_hash, _notice(b).statement_hash
    assert hashes([a, b]) == [ha, hb]
    assert hashes([a, "garbage", b]) == [hb]
    assert hashes([a, 42, b]) == [hb]
    assert hashes([b, a.replace("origin reseal/test-stack", "origin reseal/other")]) == []
    assert hashes("not a list") == [] and hashes(None) == []


def test_the_head_item_reads_its_chain_as_a_json_list_or_none() -> None:
    base = {"pk": {"S": "DEPLOYMENT#log"}, "sk": {"S": "HEAD"}, "size": {"N": "6"}}
    chain = '["' + VECTORS["statements"]["A"].replace("\n", "\\n") + '"]'
    assert deployment_head_of({**base, "reAnchorChain": {"S": chain}}).re_anchor_chain == [VECTORS["statements"]["A"]]
    for junk in ({"S": '{"a": 1}'}, {"S": "not json"}, {"N": "1"}):
        assert deployment_head_of({**base, "reAnchorChain": junk}).re_anchor_chain is None
    assert deployment_head_of(base).re_anchor_chain is None
