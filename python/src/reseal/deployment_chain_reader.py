"""Reads a freshness chain from the lineage table and verifies it (docs/deployment-log.md,
"Clients", item 2): the deployment head's ``published`` checkpoint, the index root of its last
leaf with the leaf's inclusion proof from the leaves' stored nodes, and the index proofs for a
lineage (and a residual id), each index node re-hashed against its address as it is read. A
table writer can hide an item (the chain is then refused, or unpublished under an unwitnessed
policy) but not forge one: everything read is a claim :func:`verify_deployment_chain` checks.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from .checkpoint_store import CheckpointStore
from .deployment_chain import (
    DeploymentChain,
    FreshnessPolicy,
    IndexClaim,
    verify_deployment_anchor,
    verify_deployment_chain,
)
from .errors import InvalidInputError, ResealError
from .head_note import choose_head_note
from .index import (
    INDEX_EMPTY_HASH,
    IndexProof,
    index_entry_digest,
    index_entry_key,
    index_key_path,
    index_leaf_hash,
    index_node_hash,
)
from .item_layout import DeploymentLogTableReader, StoredDeploymentHead
from .kept_deployment_checkpoint import KeptCheckpointFinding, check_kept_deployment_checkpoint
from .log import open_checkpoint, parse_checkpoint_body, parse_signed_note
from .re_anchor import re_anchor_time_after_cosignature, verify_re_anchor_chain
from .tree_refs import consistency_proof_refs, inclusion_proof_refs, range_root
from .witness import quorum_cosigned_at

__all__ = ["ChainEvidence", "DeploymentChainReader"]

_KEY_PATH_BITS: Final = 256


class _NodeMissing(Exception):
    """An index node on the path is not stored, or is stored edited (docs/verifiable-index.md, "Node store")."""

    def __init__(self, address: bytes, corrupt: bool) -> None:
        self.corrupt = corrupt
        super().__init__(f"index node {address.hex()} is {'edited' if corrupt else 'missing'}")


def _bit(path: bytes, depth: int) -> int:
    return (path[depth >> 3] >> (7 - (depth & 7))) & 1


def _claimed_size(note: str) -> int | None:
    """The size a note claims, read without trusting it (only to choose which leaf to read)."""
    try:
        text, _ = parse_signed_note(note)
        return parse_checkpoint_body(text).size
    except ResealError:
        return None


@dataclass(frozen=True)
class ChainEvidence:
    """What a chain was verified from, for a format-2 receipt (docs/verifiable-log.md, "Receipts"):
    the deployment checkpoint ``note``, the ``index_root`` its last leaf commits to, that leaf's
    RFC 9162 ``inclusion`` proof, and the index claims for the ``lineage`` and the ``residual`` id
    (``None`` when none was asked). As read from the table: only a chain that verified makes them
    proofs."""

    note: str
    index_root: bytes
    inclusion: list[bytes]
    lineage: IndexClaim
    residual: IndexClaim | None


class DeploymentChainReader:
    """Reads and verifies freshness chains for one stack (the TypeScript ``DeploymentChainReader``).

    :param table: the deployment log's and index's reads (:class:`reseal.item_layout.DeploymentLogTableReader`)
    :param policy: the policy chains are checked against (a callable, resolved on each read)
    :param now_ms: the clock, ms since the Unix epoch
    :param kept: where the newest deployment checkpoint this client authenticated is kept, keyed
        by the log's origin ``reseal/<stackName>`` (docs/verifiable-log.md, "Checkpoints the client
        keeps"; the TypeScript reader's ``kept``): every chain's note is compared with it first, so
        a table rolled back behind it is refused ``DEPLOYMENT_ROLLBACK`` and two histories ``FORK``.
        ``None``: nothing is kept, each chain stands alone.
    """

    def __init__(
        self,
        table: DeploymentLogTableReader,
        policy: Callable[[], FreshnessPolicy],
        now_ms: Callable[[], int],
        kept: CheckpointStore | None = None,
    ) -> None:
        self._table = table
        self._policy = policy
        self._now_ms = now_ms
        self._kept = kept

    def policy(self) -> FreshnessPolicy:
        """The policy chains are checked against."""
        return self._policy()

    def head_mark(self) -> str | None:
        """What the deployment head item holds now, as one string (its size, checkpoint, published
        note and re-anchor statement), read eventually consistent
        (:meth:`reseal.item_layout.DeploymentLogTableReader.peek_head`): a wait proves a chain again
        only when this moved (docs/pipeline.md, "Polling the table"). Nothing is verified here; a
        table writer can change it at will, which costs the waiter a proof, never an answer.
        ``None`` when the table holds no head.

        :raises: what the table read raises (an outage)
        """
        head = self._table.peek_head()
        return None if head is None else json.dumps([head.size, head.checkpoint, head.published, head.re_anchor])

    def read(self, lineage_id: str, residual_id: str | None = None) -> DeploymentChain:
        """The verified chain for ``lineage_id`` (and ``residual_id``); see :meth:`read_with_evidence`."""
        return self.read_with_evidence(lineage_id, residual_id)[0]

    def read_with_evidence(
        self, lineage_id: str, residual_id: str | None = None, *, eventual: bool = False
    ) -> tuple[DeploymentChain, ChainEvidence | None]:
        """The verified chain for ``lineage_id`` (and ``residual_id``): ``PROVEN``, ``ABSENT`` or
        ``REFUSED``; ``UNPUBLISHED`` when the table holds no published deployment checkpoint under
        an unwitnessed policy (under a witnessed one that is ``REFUSED``, ``POLICY_NOT_MET``: a
        witnessed deployment always publishes, so its absence is a deletion); with the evidence
        it was verified from, ``None`` when the chain was refused before the index was read.
        With a checkpoint store, a note older than the kept one (or no head while one is kept) is
        ``REFUSED``, ``DEPLOYMENT_ROLLBACK``, and two histories ``FORK``, before the index is read.

        :param eventual: read the head item eventually consistent first
            (:meth:`reseal.item_layout.DeploymentLogTableReader.peek_head`, half a read unit; the
            TypeScript ``OpenOptions.eventual``): its ``published`` note is authenticated by its
            signature and its age judged by the policy, so a copy a second old can only leave a
            record awaiting integration a moment longer; a copy that is absent or refused is read
            again strongly before anything is refused (docs/deployment-log.md, "Clients")
        :raises: what the table reads raise (an outage), never for a forged or hidden item
        """
        if eventual:
            copy = self._table.peek_head()
            # A copy a second old can be absent, or older than the kept checkpoint or the policy's
            # window: only a strongly consistent read may refuse, so any refusal is read again.
            if copy is not None:
                read = self._read_at(copy, lineage_id, residual_id)
                if read[0].kind != "REFUSED":
                    return read
        return self._read_at(self._table.head(), lineage_id, residual_id)

    def _read_at(
        self, head: StoredDeploymentHead | None, lineage_id: str, residual_id: str | None
    ) -> tuple[DeploymentChain, ChainEvidence | None]:
        """:meth:`read_with_evidence` on the head item as read (``None``: none)."""
        policy = self._policy()
        if head is None:
            kept_only = self._kept_without_head(policy)
            if kept_only is not None:
                return kept_only, None
            if policy.witnessing == "WITNESSED":
                return DeploymentChain(
                    "REFUSED",
                    refusal="POLICY_NOT_MET",
                    reason="no deployment checkpoint is published, and the policy asks for cosignatures: fail closed",
                ), None
            return DeploymentChain(
                "UNPUBLISHED", reason="no deployment checkpoint is published: nothing is integrated yet"
            ), None
        chosen = choose_head_note(head, policy.witnessing, policy.policy, self._table.read_nodes)
        if chosen.kind == "FORK":
            return DeploymentChain("REFUSED", refusal="FORK", reason=chosen.reason), None
        if chosen.kind == "UNREADABLE":
            return DeploymentChain("REFUSED", refusal="POLICY_NOT_MET", reason=chosen.reason), None
        note = chosen.note
        if note is None:
            # The head stands, so the log has integrated: a head with no note the policy can check
            # is an edited item, never "nothing integrated yet".
            return DeploymentChain(
                "REFUSED",
                refusal="POLICY_NOT_MET",
                reason="the deployment head holds no checkpoint the policy can check "
                "(its published note was removed): fail closed",
            ), None
        kept_finding = self._against_kept(head, note, policy)
        if kept_finding is not None:
            return kept_finding, None
        index_root, inclusion = self._last_leaf(head, note)
        base: dict[str, Any] = {
            "note": note,
            "policy": policy.policy,
            "max_age_seconds": policy.max_age_seconds,
            "now_seconds": self._now_ms() // 1000,
            "index_root": index_root,
            "inclusion": inclusion,
            "lineage_id": lineage_id,
            # A re-anchored history's last leaf commits to the statement (docs/deployment-log.md, "Re-anchor").
            "re_anchor": head.re_anchor,
        }
        # The checkpoint and the leaf first: index nodes are read only under a root that holds.
        placeholder = IndexClaim("absence", IndexProof("absence", (), None))
        anchored = verify_deployment_chain(**base, lineage=placeholder)
        if anchored.kind == "REFUSED" and anchored.refusal != "INDEX_PROOF_INVALID":
            return anchored, None
        try:
            lineage = self._claim(index_root, {"kind": "lineage", "lineageId": lineage_id})
            residual = (
                None
                if residual_id is None
                else (
                    residual_id,
                    self._claim(index_root, {"kind": "residual", "lineageId": lineage_id, "residualId": residual_id}),
                )
            )
        except _NodeMissing as error:
            return DeploymentChain(
                "REFUSED",
                refusal="INDEX_PROOF_INVALID",
                reason=f"an index node on the path is {'edited' if error.corrupt else 'missing'} in the table: {error}",
            ), None
        evidence = ChainEvidence(note, index_root, inclusion, lineage, None if residual is None else residual[1])
        return verify_deployment_chain(**base, lineage=lineage, residual=residual), evidence

    def compare_kept(
        self, kept_note: str, read: tuple[StoredDeploymentHead, str] | None = None
    ) -> KeptCheckpointFinding | str:
        """Compares a deployment checkpoint the caller kept with the published one (the TypeScript
        ``DeploymentChainReader.compareKept``, docs/deployment-log.md, "Re-anchor", "What clients
        see"): ``CONSISTENT`` (proven from the table's nodes), ``EXPLAINED_BY_RE_ANCHOR`` (also
        through the head's chain of earlier re-anchors, "A chain of re-anchors"; only when the kept
        note's cosignatures date it before the statement, or, uncosigned, it is no larger than the
        current one), ``NOT_NEWEST`` (a larger kept one nothing else explains: a rollback) or
        ``FORK`` (:func:`reseal.check_kept_deployment_checkpoint`).

        :param read: the head item and the note a chain is answered from, compared as read (not
            read again); default: the head is read here and its note chosen by the policy
        :returns: the finding, or why nothing can be compared (no published checkpoint, a chain
            anchor that does not verify, a kept note that is not the log's, or ``RE_ANCHOR_INVALID``:
            the statement dated after the policy's witnesses cosigned the checkpoint carrying it)
        :raises: what the table reads raise (an outage), never for a forged or hidden item
        """
        policy = self._policy()
        if read is not None:
            head: StoredDeploymentHead | None = read[0]
            note: str | None = read[1]
        else:
            head = self._table.head()
            chosen = (
                None
                if head is None
                else choose_head_note(head, policy.witnessing, policy.policy, self._table.read_nodes)
            )
            if chosen is not None and chosen.kind == "FORK":
                return f"the deployment head holds two histories: {chosen.reason}"
            if chosen is not None and chosen.kind == "UNREADABLE":
                return f"POLICY_NOT_MET: {chosen.reason}"
            note = None if chosen is None else chosen.note
        if head is None or note is None:
            return "no deployment checkpoint is published"
        anchored = self._anchor(head, note, policy)
        current = anchored.checkpoint
        if anchored.kind == "REFUSED" or current is None:
            return f"{anchored.refusal}: {anchored.reason}"
        # The statement is dated no later than the witnesses cosigned the checkpoint carrying it ("What clients see").
        late = (
            None
            if anchored.re_anchor is None
            else re_anchor_time_after_cosignature(
                anchored.re_anchor.time_seconds, quorum_cosigned_at(note, policy.policy)
            )
        )
        if late is not None:
            return f"RE_ANCHOR_INVALID: {late}"
        keys = [key for key, _url in policy.policy.logs if key.name == current.origin]
        if not keys:
            return f"the policy names no log of origin {current.origin}"
        try:
            kept = open_checkpoint(kept_note, keys[0], current.origin)
        except ResealError as error:
            return f"the kept checkpoint is not one of the log's: {error}"
        consistency: list[bytes] = []
        if 0 < kept.size < current.size:
            groups = consistency_proof_refs(kept.size, current.size)
            refs = [ref for group in groups for ref in group]
            hashes = dict(zip(refs, self._table.read_nodes(refs), strict=True)) if refs else {}
            try:
                consistency = [range_root([bytes.fromhex(str(hashes[ref])) for ref in group]) for group in groups]
            except (ValueError, TypeError):
                consistency = []  # a hidden node: the proof fails, and nothing is taken for consistent
        # The earlier re-anchors, each verified with the log key ("A chain of re-anchors").
        earlier = verify_re_anchor_chain(head.re_anchor_chain, current.origin, keys) if anchored.re_anchor else []
        # When the policy's witnesses vouch the kept checkpoint existed by: a statement explains only an older one.
        kept_time = quorum_cosigned_at(kept_note, policy.policy)
        return check_kept_deployment_checkpoint(kept, current, anchored.re_anchor, consistency, earlier, kept_time)

    def _against_kept(self, head: StoredDeploymentHead, note: str, policy: FreshnessPolicy) -> DeploymentChain | None:
        """The chain's note against the kept deployment checkpoint of its origin (the TypeScript
        ``#againstKept``, docs/verifiable-log.md, "Checkpoints the client keeps"): ``None`` when
        nothing is kept, the note does not anchor (the chain then refuses it), or it is the kept one
        or extends it (or a re-anchor the chain shows explains the kept one), and then the newer is
        kept; else the chain's refusal: ``DEPLOYMENT_ROLLBACK`` (the table serves an older
        checkpoint than one this client authenticated, ``NOT_NEWEST``, both sizes named) or
        ``FORK`` (two histories, or a kept note that no longer verifies)."""
        store = self._kept
        if store is None:
            return None
        anchored = self._anchor(head, note, policy)
        if anchored.kind == "REFUSED" or anchored.checkpoint is None:
            return None
        origin = anchored.checkpoint.origin
        size = anchored.checkpoint.size
        kept_note = store.load(origin)

        def replaces(current: str | None) -> bool:
            # Keep the note only if the store still holds what was compared, or something smaller:
            # a concurrent save of a newer checkpoint is never overwritten by this older decision.
            if current is None or current == kept_note:
                return True
            claimed = _claimed_size(current)
            return (claimed if claimed is not None else -1) < size

        if kept_note is None:
            store.save(origin, note, replaces)
            return None
        finding = self.compare_kept(kept_note, (head, note))
        if isinstance(finding, str):
            return DeploymentChain(
                "REFUSED",
                refusal="FORK",
                reason=f"the kept deployment checkpoint (key {origin}) cannot be compared: {finding}",
            )
        if finding.kind in ("CONSISTENT", "EXPLAINED_BY_RE_ANCHOR"):
            kept_size = _claimed_size(kept_note)
            if kept_note != note and (
                finding.kind == "EXPLAINED_BY_RE_ANCHOR" or (kept_size if kept_size is not None else -1) < size
            ):
                store.save(origin, note, replaces)
            return None
        if finding.kind == "NOT_NEWEST":
            return DeploymentChain(
                "REFUSED",
                refusal="DEPLOYMENT_ROLLBACK",
                reason=f"{finding.reason} (kept in the checkpoint store, key {origin})",
            )
        return DeploymentChain("REFUSED", refusal="FORK", reason=f"against the kept checkpoint: {finding.reason}")

    def _kept_without_head(self, policy: FreshnessPolicy) -> DeploymentChain | None:
        """A table with no deployment head while this client kept a checkpoint of the policy's log:
        the head item was deleted (docs/verifiable-log.md, "Checkpoints the client keeps"),
        ``DEPLOYMENT_ROLLBACK``, never "nothing integrated yet"; ``None`` when nothing is kept."""
        if self._kept is None:
            return None
        for key, _url in policy.policy.logs:
            kept_note = self._kept.load(key.name)
            if kept_note is None:
                continue
            size = _claimed_size(kept_note)
            return DeploymentChain(
                "REFUSED",
                refusal="DEPLOYMENT_ROLLBACK",
                reason=f"the table publishes no deployment checkpoint, but this client kept checkpoint "
                f"{'(unreadable)' if size is None else size} of {key.name}: the deployment head was deleted "
                "or rolled back",
            )
        return None

    def _anchor(self, head: StoredDeploymentHead, note: str, policy: FreshnessPolicy) -> DeploymentChain:
        """``note`` checked as the deployment head's checkpoint under ``policy``
        (:func:`verify_deployment_anchor`: the policy, the re-anchor statement, the last leaf
        holding the index root), the one check the chain, the kept-checkpoint comparison and the
        store's update share."""
        index_root, inclusion = self._last_leaf(head, note)
        return verify_deployment_anchor(
            note=note,
            policy=policy.policy,
            max_age_seconds=policy.max_age_seconds,
            now_seconds=self._now_ms() // 1000,
            index_root=index_root,
            inclusion=inclusion,
            re_anchor=head.re_anchor,
        )

    def _last_leaf(self, head: StoredDeploymentHead, note: str) -> tuple[bytes, list[bytes]]:
        """The index root of the leaf at ``size − 1`` of the size ``note`` claims, and its inclusion
        proof from the leaves' stored nodes (empty where the table lacks them: then refused)."""
        size = _claimed_size(note)
        last = size - 1 if size is not None and size > 0 else None
        root_hex = None
        if last is not None:
            root_hex = self._table.leaf_index_root(last)
            if root_hex is None and size == head.size:
                root_hex = head.index_root
        try:
            index_root = bytes.fromhex(root_hex) if root_hex else b""
        except ValueError:
            index_root = b""
        return index_root, ([] if last is None else self._inclusion(last, last + 1))

    def _inclusion(self, index: int, size: int) -> list[bytes]:
        """The inclusion proof of leaf ``index``; ``[]`` when a node is hidden (the verifier then refuses it)."""
        groups = inclusion_proof_refs(index, size)
        refs = [ref for group in groups for ref in group]
        hashes = dict(zip(refs, self._table.read_nodes(refs), strict=True)) if refs else {}
        try:
            return [range_root([bytes.fromhex(str(hashes[ref])) for ref in group]) for group in groups]
        except (ValueError, TypeError):
            return []

    def _read_node(self, address: bytes) -> dict[str, Any]:
        """One index node, checked against its address (docs/verifiable-index.md, "Node store")."""
        (node,) = self._table.index_nodes([address])
        if node is None:
            raise _NodeMissing(address, False)
        if node["kind"] == "interior":
            if index_node_hash(node["left"], node["right"]) != address:
                raise _NodeMissing(address, True)
            return node
        try:
            path = index_key_path(index_entry_key(node["entry"]))
            digest = index_entry_digest(node["entry"])
        except (InvalidInputError, TypeError, AttributeError) as error:
            raise _NodeMissing(address, True) from error
        if index_leaf_hash(path, digest) != address:
            raise _NodeMissing(address, True)
        return {**node, "key_path": path, "entry_digest": digest}

    def _claim(self, root: bytes, key: dict[str, str]) -> IndexClaim:
        """Walks the key's path down from ``root`` (docs/verifiable-index.md, "Proofs"): to its
        leaf (presence), an empty subtree or another key's leaf (absence)."""
        path = index_key_path(key)
        siblings: list[bytes | None] = []
        address = root
        while True:
            if len(siblings) > _KEY_PATH_BITS:
                raise _NodeMissing(address, True)
            if address == INDEX_EMPTY_HASH:
                return IndexClaim("absence", IndexProof("absence", tuple(siblings), None))
            node = self._read_node(address)
            if node["kind"] == "leaf":
                if node["key_path"] == path:
                    return IndexClaim("presence", IndexProof("presence", tuple(siblings), None), node["entry"])
                leaf = (node["key_path"], node["entry_digest"])
                return IndexClaim("absence", IndexProof("absence", tuple(siblings), leaf))
            right = _bit(path, len(siblings)) == 1
            sibling = node["left"] if right else node["right"]
            siblings.append(None if sibling == INDEX_EMPTY_HASH else sibling)
            address = node["right"] if right else node["left"]
