"""The head-state MAC's message (docs/verifiable-log.md, "Appending"; docs/canonical-form.md), as
the TypeScript ``headStateMessage`` (``shared/log/head-state-mac.ts``) builds it: what the sealer
vouches for, with the records' KMS HMAC key, when it stores a lineage's head. A Python auditor
holding ``kms:VerifyMac`` checks a head item's ``headMac`` against these 32 bytes."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise
from typing import Any

from ._checks import is_hex_digest, is_safe_int
from .authorship import parse_lineage_policy, policy_digest
from .canonical import HashDomain, hash_canonical
from .errors import InputIssue, InvalidInputError, ResealError
from .item_layout import StoredLogHead
from .log import leaf_hash
from .records import record_hash_of
from .tree_refs import range_root

__all__ = [
    "MAX_HEAD_STATE_BATCH",
    "claimed_head_state",
    "head_key_message",
    "head_mac_message",
    "head_state_batch_message",
    "head_state_message",
]

MAX_HEAD_STATE_BATCH = 64
"""Most head states one batch head-state MAC names (the TypeScript ``MAX_HEAD_STATE_BATCH``)."""


def head_state_message(state: Mapping[str, Any]) -> bytes:
    """``SHA-256("reseal/v1/head-state" || 0x00 || JCS({v: 1, lineageId, treeSize, rootHash,
    headSeq, headRecordHash, generationEpoch, writerPolicyDigest}))``, 32 bytes. ``state`` holds
    those seven fields (hex lowercase, ``writerPolicyDigest`` ``None`` for a format-1 head).

    :raises KeyError: a field is missing
    :raises InvalidInputError: a value JCS cannot encode (docs/canonical-form.md)
    """
    fields = ("lineageId", "treeSize", "rootHash", "headSeq", "headRecordHash", "generationEpoch", "writerPolicyDigest")
    body = {"v": 1, **{name: state[name] for name in fields}}
    return bytes.fromhex(hash_canonical(HashDomain.HEAD_STATE, body))


def head_key_message(state: Mapping[str, Any]) -> bytes:
    """``SHA-256("reseal/v1/head-state-key" || 0x00 || JCS({v: 1, lineageId, ...}))``, 32 bytes, as
    the TypeScript ``headKeyMessage`` (``shared/log/head-key-mac.ts``) builds it: the message of a
    head item's ``headKeyMac``, HMAC-SHA-256 under the notice data key its ``headDataKey`` wraps
    (docs/verifiable-log.md, "Appending"). Same fields as :func:`head_state_message`, another tag.

    :raises KeyError: a field is missing
    :raises InvalidInputError: a value JCS cannot encode (docs/canonical-form.md)
    """
    fields = ("lineageId", "treeSize", "rootHash", "headSeq", "headRecordHash", "generationEpoch", "writerPolicyDigest")
    body = {"v": 1, **{name: state[name] for name in fields}}
    return bytes.fromhex(hash_canonical(HashDomain.HEAD_STATE_KEY, body))


def is_head_state_batch(heads: Any) -> bool:
    """Whether ``heads`` is a well-formed batch: a list of 1 to :data:`MAX_HEAD_STATE_BATCH` lowercase
    64-hex digests, strictly ascending (so distinct, one spelling per set of heads)."""
    return (
        type(heads) is list
        and 1 <= len(heads) <= MAX_HEAD_STATE_BATCH
        and all(is_hex_digest(h) for h in heads)
        and all(a < b for a, b in pairwise(heads))
    )


def head_state_batch_message(heads: list[str]) -> bytes:
    """``SHA-256("reseal/v1/head-state-batch" || 0x00 || JCS({v: 1, heads}))``, 32 bytes: the message
    of a batch head-state MAC (one ``GenerateMac`` for the head states of one sealer invocation;
    docs/verifiable-log.md, "Appending"). ``heads`` are the states' :func:`head_state_message`
    digests (hex), distinct and ascending. Never a single state's message (another tag) nor a
    record MAC's input (a record's canonical header, never 32 bytes).

    :raises InvalidInputError: ``heads`` is not a well-formed batch
    """
    if not is_head_state_batch(heads):
        raise InvalidInputError("heads", [InputIssue("", "expected 1 to 64 distinct lowercase hex digests, ascending")])
    return bytes.fromhex(hash_canonical(HashDomain.HEAD_STATE_BATCH, {"v": 1, "heads": heads}))


def head_mac_message(state: Mapping[str, Any], head_mac: Any) -> bytes | None:
    """The 32 bytes a head item's ``headMac`` must verify over (``kms:VerifyMac`` with its ``mac``)
    to vouch for ``state``, as the TypeScript ``verifyHeadStateMac`` checks it: without ``heads``,
    ``state``'s own :func:`head_state_message`; with ``heads`` (a batch MAC), the
    :func:`head_state_batch_message` of the list, which must be well formed and name ``state``'s
    digest. ``None`` when the stored MAC cannot vouch for ``state`` (not an object, a malformed or
    foreign ``heads`` list): the head is not authenticated by it. Says nothing about freshness.

    :raises KeyError: a field of ``state`` is missing
    """
    if not isinstance(head_mac, Mapping):
        return None
    if "heads" not in head_mac:
        return head_state_message(state)
    heads = head_mac["heads"]
    if not is_head_state_batch(heads) or head_state_message(state).hex() not in heads:
        return None
    return head_state_batch_message(heads)


def claimed_head_state(lineage_id: str, stored: StoredLogHead) -> dict[str, Any]:
    """The head state a head item claims (the fields :func:`head_state_message` covers), as the
    TypeScript ``claimedLogState`` (``shared/log/log-state.ts``) reads it (docs/sealing.md, "The
    append's layout"): a head with its tip ``header`` takes seq, record hash, epoch and policy digest
    from that header, which must hash to the item's ``recordHash`` and carry its seq, lineage and
    epoch; a small head (no ``header``) takes seq, record hash and epoch from its attributes and the
    policy digest from its stored policy (``None`` without one), and may carry no signed checkpoint.
    The root is the stored frontier (of ``seq`` leaves) extended by the head record's leaf. Unverified:
    the head-state MAC (or the index) vouches for it.

    :raises InvalidInputError: the head item is not a well-formed state
    """

    def fail(message: str) -> InvalidInputError:
        return InvalidInputError("head item", [InputIssue("", message)])

    head = stored.head
    seq: Any = head.get("seq")
    if not is_safe_int(seq):
        raise fail(f"the head names seq {seq}")
    record_hash: Any = head.get("recordHash")
    epoch: Any = head.get("generationEpoch")
    if stored.header is None:
        if stored.checkpoint is not None:
            raise fail("the head item carries a signed checkpoint but no record header")
        if not is_hex_digest(record_hash):
            raise fail(f"the head item claims record hash {record_hash}")
        if not is_safe_int(epoch):
            raise fail(f"the head item claims generation epoch {epoch}")
        digest = None if stored.policy is None else policy_digest(parse_lineage_policy(stored.policy))
    else:
        header = stored.header
        try:
            from_header = record_hash_of(header) if isinstance(header, dict) else None
        except (ResealError, KeyError, TypeError, ValueError):
            from_header = None
        if from_header is None or from_header != record_hash:
            raise fail("the head record header is malformed or does not hash to the head's record hash")
        if header.get("lineageId") != lineage_id or header.get("monotonicSequenceNumber") != seq:
            raise fail("the head record header is of another lineage or seq")
        if header.get("generationEpoch") != epoch:
            raise fail("the head item claims another generation epoch than its record header")
        digest = header.get("policyDigest")
        if digest is not None and (
            stored.policy is None or policy_digest(parse_lineage_policy(stored.policy)) != digest
        ):
            raise fail("the head item's lineage write policy is not the one its record header names")
    frontier = stored.frontier
    if frontier is None or len(frontier) != bin(seq).count("1") or not all(is_hex_digest(h) for h in frontier):
        raise fail(f"the frontier is not that of a tree of {seq} leaves")
    root = range_root([*(bytes.fromhex(h) for h in frontier), leaf_hash(bytes.fromhex(record_hash))])
    return {
        "lineageId": lineage_id,
        "treeSize": seq + 1,
        "rootHash": root.hex(),
        "headSeq": seq,
        "headRecordHash": record_hash,
        "generationEpoch": epoch,
        "writerPolicyDigest": digest,
    }
