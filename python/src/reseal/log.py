"""The verifiable log, offline (docs/verifiable-log.md): RFC 9162 hashing and proof verification,
C2SP signed notes, verifier keys and checkpoints, record proofs, receipts and signed outcomes.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from ._checks import Checker, is_hex_digest, is_safe_int
from .canonical import MAX_SAFE_INTEGER, HashDomain, hash_canonical, is_well_formed
from .errors import (
    CheckpointFormatError,
    CheckpointOriginMismatchError,
    InputIssue,
    InvalidInputError,
    NoteFormatError,
    NoteVerificationError,
    OutcomeVerificationError,
    ResealError,
)
from .records import IntegrityFailure, check_record_integrity
from .records import VerificationVerdict as V
from .strict_json import parse_strict_json

if TYPE_CHECKING:
    from .chain_receipt import ChainReceiptDeployment

__all__ = [
    "HASH_BYTES",
    "EMPTY_ROOT",
    "leaf_hash",
    "node_hash",
    "merkle_tree_hash",
    "inclusion_root",
    "verify_inclusion",
    "verify_consistency",
    "NoteVerifierKey",
    "ed25519_key_hash",
    "note_verifier_key",
    "format_verifier_key",
    "parse_verifier_key",
    "Ed25519NoteSigner",
    "NoteSignature",
    "parse_signed_note",
    "verify_note",
    "sign_note",
    "Checkpoint",
    "checkpoint_body",
    "parse_checkpoint_body",
    "checkpoint_origin",
    "sign_checkpoint",
    "open_checkpoint",
    "RecordProofResult",
    "verify_record_proof",
    "check_consistency",
    "ReceiptVerification",
    "verify_checkpoint_receipt",
    "OUTCOME_NOTE_TAG",
    "request_digest",
    "rejection_content_digest",
    "conflict_content_digest",
    "open_outcome",
    "outcome_key_roles",
    "outcome_key_name",
    "open_outcome_of_stage",
    "check_rejection",
    "check_conflict",
]

HASH_BYTES: Final = 32
EMPTY_ROOT: Final = hashlib.sha256(b"").digest()
"""MTH of the empty tree (RFC 9162 §2.1.1)."""
MAX_NOTE_BYTES: Final = 16 * 1024
MAX_NOTE_SIGNATURES: Final = 100
MAX_PROOF_HASHES: Final = 128
_SIGNATURE_TYPE: Final = 0x01
_EM_DASH_SPACE: Final = "\u2014 "


# --- RFC 9162 §2.1 ---------------------------------------------------------------------------


def leaf_hash(leaf: bytes) -> bytes:
    """``SHA-256(0x00 || leaf)``; a Reseal leaf is the 32 raw bytes of a record hash."""
    return hashlib.sha256(b"\x00" + bytes(leaf)).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """``SHA-256(0x01 || left || right)``."""
    return hashlib.sha256(b"\x01" + bytes(left) + bytes(right)).digest()


def merkle_tree_hash(leaves: Sequence[bytes]) -> bytes:
    """MTH of the leaves (raw, not yet leaf-hashed), from RFC 9162's recursive definition."""
    if not leaves:
        return EMPTY_ROOT
    if len(leaves) == 1:
        return leaf_hash(leaves[0])
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return node_hash(merkle_tree_hash(leaves[:k]), merkle_tree_hash(leaves[k:]))


def _hashes_ok(*hashes: Any) -> bool:
    return all(isinstance(h, (bytes, bytearray)) and len(h) == HASH_BYTES for h in hashes)


def _size_ok(*sizes: Any) -> bool:
    return all(is_safe_int(s) for s in sizes)


def verify_inclusion(
    leaf_index: int, tree_size: int, leaf_hash: bytes, proof: Sequence[bytes], root_hash: bytes
) -> bool:
    """RFC 9162 §2.1.3.2. Never raises: malformed input (an index not below the size, a size past
    2^53 − 1, a hash not of 32 bytes, a proof too long or too short) answers ``False``."""
    if not _hashes_ok(root_hash):
        return False
    root = inclusion_root(leaf_index, tree_size, leaf_hash, proof)
    return root is not None and root == bytes(root_hash)


def inclusion_root(leaf_index: int, tree_size: int, leaf_hash: bytes, proof: Sequence[bytes]) -> bytes | None:
    """The root RFC 9162 §2.1.3.2 folds ``proof`` to from leaf ``leaf_index`` of ``tree_size``,
    or ``None`` for malformed input (as :func:`verify_inclusion`). Never raises."""
    if not _size_ok(leaf_index, tree_size) or leaf_index >= tree_size:
        return None
    if not _hashes_ok(leaf_hash, *proof) or len(proof) > MAX_PROOF_HASHES:
        return None
    fn, sn, r = leaf_index, tree_size - 1, bytes(leaf_hash)
    for p in proof:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return r if sn == 0 else None


def verify_consistency(size1: int, size2: int, root1: bytes, root2: bytes, proof: Sequence[bytes]) -> bool:
    """RFC 9162 §2.1.4.2; never raises. Equal sizes need the empty proof and equal roots; size1 = 0
    needs the empty proof and ``root1`` = :data:`EMPTY_ROOT` (every tree extends the empty one)."""
    if not _size_ok(size1, size2) or size1 > size2:
        return False
    if not _hashes_ok(root1, root2, *proof) or len(proof) > MAX_PROOF_HASHES:
        return False
    root1, root2 = bytes(root1), bytes(root2)
    if size1 == size2:
        return not proof and root1 == root2
    if size1 == 0:
        return not proof and root1 == EMPTY_ROOT
    if not proof:
        return False
    path = list(proof)
    if size1 & (size1 - 1) == 0:
        path.insert(0, root1)
    fn, sn = size1 - 1, size2 - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == root1 and sr == root2


# --- C2SP signed notes -----------------------------------------------------------------------

_NAME_FORBIDDEN = re.compile(r"[\s\u0085+\x00-\x1f\x7f-\x9f]")


def _valid_key_name(name: Any) -> bool:
    return type(name) is str and name != "" and is_well_formed(name) and _NAME_FORBIDDEN.search(name) is None


def _strict_b64(text: str) -> bytes | None:
    """Canonical padded standard base64 (one spelling per value), else ``None``."""
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        return None
    return raw if base64.b64encode(raw).decode() == text else None


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


@dataclass(frozen=True)
class NoteVerifierKey:
    """An Ed25519 note key: name, 4-byte key hash, 32-byte public key."""

    name: str
    key_hash: bytes
    public_key: bytes


def ed25519_key_hash(name: str, public_key: bytes) -> bytes:
    """First 4 bytes of ``SHA-256(UTF-8(name) || 0x0A || 0x01 || public key)``."""
    if not _valid_key_name(name):
        raise InvalidInputError(
            "note key name",
            [InputIssue("", 'expected a non-empty name without white space, "+" or control characters')],
        )
    if not isinstance(public_key, (bytes, bytearray)) or len(public_key) != 32:
        raise InvalidInputError("Ed25519 public key", [InputIssue("", "expected 32 raw bytes")])
    return hashlib.sha256(name.encode() + b"\n\x01" + bytes(public_key)).digest()[:4]


def note_verifier_key(name: str, public_key: bytes) -> NoteVerifierKey:
    """The verifier key of a name and a raw 32-byte Ed25519 public key."""
    return NoteVerifierKey(name, ed25519_key_hash(name, public_key), bytes(public_key))


def format_verifier_key(key: NoteVerifierKey) -> str:
    """``<name>+<8 hex of key hash>+<base64(0x01 || public key)>`` (the vkey operators hand to auditors)."""
    if ed25519_key_hash(key.name, key.public_key) != key.key_hash:
        raise InvalidInputError(
            "note verifier key", [InputIssue("keyHash", "is not the key hash of this name and public key")]
        )
    return f"{key.name}+{key.key_hash.hex()}+{_b64(bytes([_SIGNATURE_TYPE]) + key.public_key)}"


def _parse_vkey(
    text: str,
    *,
    what: str,
    id_path: str,
    id_word: str,
    signature_type: int,
    wrong_type: Callable[[int | None], str],
    key_id_of: Callable[[str, bytes], bytes],
) -> tuple[str, bytes, bytes]:
    """The name, key ID and 32-byte public key of a vkey ``<name>+<8 hex of key ID>+<base64(type ||
    key)>``, the envelope a signed-note key (type 0x01) and a cosigner key (type 0x04) share; each
    kind passes the words of its own messages.

    :raises InvalidInputError: ``what``, naming the bad part (``name``, ``id_path``, ``key``)
    """

    def fail(path: str, message: str) -> InvalidInputError:
        return InvalidInputError(what, [InputIssue(path, message)])

    if type(text) is not str or len(text) > 1024:
        raise fail("", "expected a string of at most 1024 characters")
    parts = text.split("+", 2)
    if len(parts) != 3:
        raise fail("", f"expected <name>+<{id_word}>+<key>")
    name, id_hex, encoded = parts
    if not _valid_key_name(name):
        raise fail("name", "expected a non-empty name without white space or control characters")
    if re.fullmatch(r"[0-9a-f]{8}", id_hex) is None:
        raise fail(id_path, "expected 8 lowercase hexadecimal characters")
    material = _strict_b64(encoded)
    if material is None:
        raise fail("key", "expected canonical standard base64")
    if not material or material[0] != signature_type:
        raise fail("key", wrong_type(material[0] if material else None))
    if len(material) != 33:
        raise fail("key", "expected a 32-byte Ed25519 key")
    public_key = bytes(material[1:])
    key_id = key_id_of(name, public_key)
    if key_id.hex() != id_hex:
        raise fail(id_path, f"{id_hex} is not the {id_word} of this name and key (expected {key_id.hex()})")
    return name, key_id, public_key


def parse_verifier_key(text: str) -> NoteVerifierKey:
    """Parses ``<name>+<hash>+<key>`` (e.g. what ``reseal log-key`` prints).

    :raises InvalidInputError: naming the bad part (``name``, ``keyHash``, ``key``)
    """
    name, key_hash, public_key = _parse_vkey(
        text,
        what="note verifier key",
        id_path="keyHash",
        id_word="key hash",
        signature_type=_SIGNATURE_TYPE,
        wrong_type=lambda found: f"unsupported signature type {found}",
        key_id_of=ed25519_key_hash,
    )
    return NoteVerifierKey(name, key_hash, public_key)


class Ed25519NoteSigner:
    """Signs notes with a local Ed25519 key (tests, demos; production signs with KMS).

    :param key_name: the note key name, e.g. ``reseal/<stackName>``
    :param seed: the 32-byte private seed
    """

    def __init__(self, key_name: str, seed: bytes) -> None:
        if not _valid_key_name(key_name):
            raise InvalidInputError("note signer", [InputIssue("keyName", "invalid key name")])
        if not isinstance(seed, (bytes, bytearray)) or len(seed) != 32:
            raise InvalidInputError("note signer", [InputIssue("seed", "expected 32 bytes")])
        self.key_name = key_name
        self._key = Ed25519PrivateKey.from_private_bytes(bytes(seed))
        self.public_key = self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    @property
    def verifier_key(self) -> NoteVerifierKey:
        return note_verifier_key(self.key_name, self.public_key)

    def sign(self, message: bytes) -> bytes:
        return self._key.sign(message)


@dataclass(frozen=True)
class NoteSignature:
    """One signature line: key name, 4-byte key hash, signature bytes."""

    name: str
    key_hash: bytes
    signature: bytes


def _control_problem(text: str) -> str | None:
    for i, ch in enumerate(text):
        if ord(ch) < 0x20 and ch != "\n":
            return f"control character U+{ord(ch):04x} at offset {i}"
    return None


def _text_problem(text: Any) -> str | None:
    if type(text) is not str or text == "":
        return "expected a non-empty string"
    if not text.endswith("\n"):
        return "the text must end with a newline"
    if not is_well_formed(text):
        return "the text is not well-formed Unicode (lone surrogate)"
    return _control_problem(text)


def parse_signed_note(note: str) -> tuple[str, list[NoteSignature]]:
    """Splits a signed note into its text and signature lines (strict and bounded).

    :raises NoteFormatError: naming the part
    """
    if type(note) is not str:
        raise NoteFormatError("", "expected a string")
    if not is_well_formed(note):
        raise NoteFormatError("", "the note is not well-formed Unicode (lone surrogate)")
    if len(note.encode()) > MAX_NOTE_BYTES:
        raise NoteFormatError("", f"the note exceeds {MAX_NOTE_BYTES} bytes")
    problem = _control_problem(note)
    if problem:
        raise NoteFormatError("", problem)
    split = note.rfind("\n\n")
    if split < 0:
        raise NoteFormatError("", "no blank line separates the text from the signatures")
    text, block = note[: split + 1], note[split + 2 :]
    if not block:
        raise NoteFormatError("signatures", "no signature lines after the blank line")
    if not block.endswith("\n"):
        raise NoteFormatError("signatures", "the last signature line must end with a newline")
    lines = block[:-1].split("\n")
    if len(lines) > MAX_NOTE_SIGNATURES:
        raise NoteFormatError("signatures", f"more than {MAX_NOTE_SIGNATURES} signature lines")
    signatures = []
    for i, line in enumerate(lines):
        path = f"signatures.{i}"
        if not line.startswith(_EM_DASH_SPACE):
            raise NoteFormatError(path, 'expected "— " (U+2014, space) at line start')
        parts = line[len(_EM_DASH_SPACE) :].split(" ")
        if len(parts) != 2:
            raise NoteFormatError(path, 'expected "— <key name> <base64 signature>"')
        name, encoded = parts
        if not _valid_key_name(name):
            raise NoteFormatError(path, "invalid key name")
        blob = _strict_b64(encoded)
        if blob is None:
            raise NoteFormatError(path, "signature is not canonical standard base64")
        if len(blob) <= 4:
            raise NoteFormatError(path, "signature shorter than 5 bytes")
        signatures.append(NoteSignature(name, blob[:4], blob[4:]))
    return text, signatures


def _verify_ed25519(public_key: bytes, message: bytes, signature: bytes) -> bool:
    if len(signature) != 64:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def verify_note(note: str, key: NoteVerifierKey) -> str:
    """The note's text, when a line with the key's name *and* key hash carries a valid signature.

    Lines by other keys are ignored (witness cosignatures); a line by this key that does not
    verify rejects the whole note.

    :raises NoteFormatError: a malformed note
    :raises NoteVerificationError: no line by this key, or one that does not verify
    """
    text, signatures = parse_signed_note(note)
    if ed25519_key_hash(key.name, key.public_key) != key.key_hash:
        raise InvalidInputError(
            "note verifier key", [InputIssue("keyHash", "is not the key hash of this name and public key")]
        )
    mine = [s for s in signatures if s.name == key.name and s.key_hash == key.key_hash]
    if not mine:
        raise NoteVerificationError(key.name, "no signature line by this key (name and key hash)")
    message = text.encode()
    if not all(_verify_ed25519(key.public_key, message, s.signature) for s in mine):
        raise NoteVerificationError(key.name, "a signature line by this key does not verify")
    return text


def sign_note(text: str, signer: Ed25519NoteSigner) -> str:
    """Signs ``text`` (ending in a newline) into a one-signature note."""
    problem = _text_problem(text)
    if problem:
        raise NoteFormatError("text", problem)
    signature = signer.sign(text.encode())
    blob = ed25519_key_hash(signer.key_name, signer.public_key) + signature
    note = f"{text}\n{_EM_DASH_SPACE}{signer.key_name} {_b64(blob)}\n"
    if len(note.encode()) > MAX_NOTE_BYTES:
        raise NoteFormatError("", f"the note exceeds {MAX_NOTE_BYTES} bytes")
    return note


# --- checkpoints -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Checkpoint:
    """A tree head: ``origin`` (``reseal/<stack>/<lineage>``), ``size``, 32-byte ``root_hash``;
    ``note`` is the signed note it was read from (``None`` when built locally)."""

    origin: str
    size: int
    root_hash: bytes
    note: str | None = None
    last_leaf_path: tuple[str, ...] | None = field(default=None, compare=False)
    """The inclusion path (hex, leaf side first) of the last leaf, ``size - 1``, as the lineage's
    head item stores it: its frontier of the first ``size - 1`` leaves read right to left
    (docs/verifiable-log.md, "Stored state"; the TypeScript ``StoredTreeHead.lastLeafPath``). A
    claim of the table, used only where it proves the record against ``root_hash``
    (:func:`reseal.known_log_nodes.known_log_nodes`); ``None`` when the frontier does not fit the
    tree. Not part of the tree head: never compared."""


def _origin_problem(origin: Any) -> str | None:
    if type(origin) is not str or origin == "":
        return "expected a non-empty string"
    if not is_well_formed(origin):
        return "not well-formed Unicode (lone surrogate)"
    if re.search(r"[\x00-\x1f\x7f-\x9f]", origin):
        return "holds a control character (newlines included)"
    return None


def checkpoint_body(checkpoint: Checkpoint) -> str:
    """``<origin>\\n<size>\\n<base64 root>\\n``."""
    problem = _origin_problem(checkpoint.origin)
    if problem:
        raise CheckpointFormatError("origin", problem)
    if not is_safe_int(checkpoint.size):
        raise CheckpointFormatError("size", "expected a safe non-negative integer")
    if not _hashes_ok(checkpoint.root_hash):
        raise CheckpointFormatError("rootHash", f"expected {HASH_BYTES} bytes")
    return f"{checkpoint.origin}\n{checkpoint.size}\n{_b64(checkpoint.root_hash)}\n"


def parse_checkpoint_body(text: str) -> Checkpoint:
    """Reads back exactly what :func:`checkpoint_body` writes (no extension lines).

    :raises CheckpointFormatError: naming the line
    """
    if type(text) is not str:
        raise CheckpointFormatError("", "expected a string")
    if not text.endswith("\n"):
        raise CheckpointFormatError("", "the body must end with a newline")
    lines = text[:-1].split("\n")
    if len(lines) < 3:
        raise CheckpointFormatError("", f"expected 3 lines (origin, size, root), got {len(lines)}")
    if len(lines) > 3:
        raise CheckpointFormatError("", "extension lines are not accepted (Reseal never writes them)")
    origin, size_text, root_text = lines
    problem = _origin_problem(origin)
    if problem:
        raise CheckpointFormatError("origin", problem)
    if re.fullmatch(r"0|[1-9][0-9]*", size_text) is None:
        raise CheckpointFormatError("size", "expected a decimal number without leading zeros")
    if len(size_text) > 16 or int(size_text) > MAX_SAFE_INTEGER:
        raise CheckpointFormatError("size", "larger than 2^53 − 1")
    root = _strict_b64(root_text)
    if root is None:
        raise CheckpointFormatError("rootHash", "expected canonical standard base64")
    if len(root) != HASH_BYTES:
        raise CheckpointFormatError("rootHash", f"expected {HASH_BYTES} bytes")
    return Checkpoint(origin, int(size_text), root)


def checkpoint_origin(log_name: str, lineage_id: str) -> str:
    """``<logName>/<lineageId>``: the origin of one lineage's checkpoints (``logName`` = ``reseal/<stack>``)."""
    return f"{log_name}/{lineage_id}"


def sign_checkpoint(checkpoint: Checkpoint, signer: Ed25519NoteSigner) -> str:
    """The checkpoint as a signed note."""
    return sign_note(checkpoint_body(checkpoint), signer)


def open_checkpoint(note: str, key: NoteVerifierKey, origin: str) -> Checkpoint:
    """Verifies the signature, then the origin; returns the checkpoint with its ``note``.

    :raises NoteFormatError, NoteVerificationError, CheckpointFormatError:
    :raises CheckpointOriginMismatchError: a valid checkpoint of another lineage or stack
    """
    parsed = parse_checkpoint_body(verify_note(note, key))
    if parsed.origin != origin:
        raise CheckpointOriginMismatchError(origin, parsed.origin)
    return Checkpoint(parsed.origin, parsed.size, parsed.root_hash, note)


# --- record proofs and receipts --------------------------------------------------------------


@dataclass(frozen=True)
class RecordProofResult:
    """``verdict`` with its ``reason``; ``record`` is the proven record when ``VERIFIED_INTACT``."""

    verdict: str
    reason: str
    record: dict[str, Any] | None = None


def _check_proof_shape(check: Checker, proof: Any, path: str) -> None:
    if check.obj(proof, path, ("leafIndex", "treeSize", "inclusionProof")):
        check.safe_int(proof.get("leafIndex"), f"{path}.leafIndex")
        check.safe_int(proof.get("treeSize"), f"{path}.treeSize", 1)
        hashes = proof.get("inclusionProof")
        if type(hashes) is not list or len(hashes) > MAX_PROOF_HASHES:
            check.add(f"{path}.inclusionProof", f"expected an array of at most {MAX_PROOF_HASHES} digests")
        else:
            for i, h in enumerate(hashes):
                check.hex_digest(h, f"{path}.inclusionProof.{i}")


def verify_record_proof(record: Any, inclusion: Any, checkpoint: Checkpoint, lineage_id: str) -> RecordProofResult:
    """A record proven by inclusion in a checkpoint whose signature the caller checked
    (docs/verifiable-log.md, "Proving a record"): its own hashes, its lineage, and leaf = seq.
    No MAC: the signed root authenticates the record."""
    integrity = check_record_integrity(record)
    if isinstance(integrity, IntegrityFailure):
        return RecordProofResult(integrity.verdict, integrity.reason)
    header = integrity.record["header"]
    seq = header["monotonicSequenceNumber"]
    if header["lineageId"] != lineage_id:
        return RecordProofResult(V.LINEAGE_BROKEN, f"record belongs to lineage {header['lineageId']}, not {lineage_id}")
    check = Checker()
    _check_proof_shape(check, inclusion, "inclusion")
    if check.issues:
        return RecordProofResult(V.HASH_MISMATCH, "malformed inclusion proof")
    if inclusion["leafIndex"] != seq:
        return RecordProofResult(V.LINEAGE_BROKEN, f"record seq {seq} is offered as leaf {inclusion['leafIndex']}")
    if inclusion["treeSize"] != checkpoint.size or seq >= checkpoint.size:
        return RecordProofResult(
            V.LINEAGE_BROKEN,
            f"proof is for a tree of {inclusion['treeSize']} records; the checkpoint covers {checkpoint.size}",
        )
    included = verify_inclusion(
        seq,
        inclusion["treeSize"],
        leaf_hash(bytes.fromhex(integrity.record_hash)),
        [bytes.fromhex(h) for h in inclusion["inclusionProof"]],
        checkpoint.root_hash,
    )
    if not included:
        return RecordProofResult(
            V.HASH_MISMATCH,
            f"record seq {seq} is not the record the signed checkpoint (size {checkpoint.size}) holds at leaf {seq}",
        )
    return RecordProofResult(
        V.VERIFIED_INTACT, f"record seq {seq} is leaf {seq} of the signed checkpoint", integrity.record
    )


def check_consistency(older: Checkpoint, newer: Checkpoint, proof: Sequence[str]) -> RecordProofResult:
    """Whether ``newer`` extends ``older`` (both signature-checked): ``VERIFIED_INTACT``;
    ``TRUNCATION_DETECTED`` when ``newer`` is smaller (a rollback); ``LINEAGE_BROKEN`` when the
    hex ``proof`` fails: at one size two roots are a fork; between sizes the proof comes from the
    table's nodes, so its failure proves only "not shown consistent" (a fork, or nodes a table
    writer edited), and the reason says no more (as the TypeScript ``checkConsistency``)."""
    if newer.size < older.size:
        return RecordProofResult(
            V.TRUNCATION_DETECTED, f"the log shrank from {older.size} to {newer.size} records (rolled back)"
        )
    if not all(is_hex_digest(h) for h in proof):
        return RecordProofResult(V.LINEAGE_BROKEN, "malformed consistency proof")
    if not verify_consistency(
        older.size, newer.size, older.root_hash, newer.root_hash, [bytes.fromhex(h) for h in proof]
    ):
        if older.size == newer.size:
            return RecordProofResult(
                V.LINEAGE_BROKEN,
                f"the checkpoint of {newer.size} records has another root than the one of that size (a fork)",
            )
        return RecordProofResult(
            V.LINEAGE_BROKEN,
            f"the checkpoint of {newer.size} records is not shown to extend the one of {older.size}: its consistency "
            "proof, from the table's tree nodes, does not verify (a fork, or edited nodes)",
        )
    return RecordProofResult(
        V.VERIFIED_INTACT, f"the checkpoint of {newer.size} records extends the one of {older.size}"
    )


@dataclass(frozen=True)
class ReceiptVerification:
    """What :func:`reseal.verify_receipt` finds (docs/verifiable-log.md, "Receipts"): ``verdict``,
    ``reason``, and when intact the proven ``record``. Format 1: the lineage's signed
    ``checkpoint``. Format 2: ``deployment``, the deployment checkpoint as the policy accepted it
    (also on ``LINEAGE_BROKEN``), ``refusal`` why the deployment chain was refused (or ``None``) and
    ``freshness_checked`` (a maximum age was checked, not inclusion only)."""

    verdict: str
    reason: str
    record: dict[str, Any] | None
    checkpoint: Checkpoint | None
    format_version: int = 1
    refusal: str | None = None
    deployment: ChainReceiptDeployment | None = None
    freshness_checked: bool = False


_RECEIPT_FIELDS: Final = ("formatVersion", "type", "lineageId", "record", "inclusion", "checkpoint")


def verify_checkpoint_receipt(receipt: Any, log_key: NoteVerifierKey | str) -> ReceiptVerification:
    """Verifies a format-1 receipt (``reseal export --receipt --receipt-format 1``) with no AWS at
    all (docs/verifiable-log.md, "Receipts"); :func:`reseal.verify_receipt` reads both formats.

    :param receipt: the receipt as parsed JSON (read files with :func:`parse_strict_json`), or its text
    :param log_key: the log's verifier key, or its ``<name>+<hash>+<key>`` string
    :returns: ``VERIFIED_INTACT`` with the record and checkpoint, or the verdict and why not
        (a malformed receipt or a checkpoint that does not verify is ``HASH_MISMATCH``); never
        raises on a bad receipt
    :raises InvalidInputError: ``log_key`` is a string that is not a verifier key
    """
    key = parse_verifier_key(log_key) if isinstance(log_key, str) else log_key
    if isinstance(receipt, (str, bytes)):
        try:
            receipt = parse_strict_json(receipt, "receipt")
        except InvalidInputError as error:
            return ReceiptVerification(V.HASH_MISMATCH, f"malformed receipt: {error}", None, None)
    check = Checker()
    if check.obj(receipt, "", _RECEIPT_FIELDS):
        if receipt.get("formatVersion") != 1 or type(receipt.get("formatVersion")) is not int:
            check.add("formatVersion", "expected 1")
        if receipt.get("type") != "reseal-receipt":
            check.add("type", 'expected "reseal-receipt"')
        check.identifier(receipt.get("lineageId"), "lineageId")
        _check_proof_shape(check, receipt.get("inclusion"), "inclusion")
        check.string(receipt.get("checkpoint"), "checkpoint", MAX_NOTE_BYTES, 1)
    if check.issues:
        issue = check.issues[0]
        return ReceiptVerification(
            V.HASH_MISMATCH, f"malformed receipt at {issue.path or '<root>'}: {issue.message}", None, None
        )
    lineage_id = receipt["lineageId"]
    try:
        checkpoint = open_checkpoint(receipt["checkpoint"], key, checkpoint_origin(key.name, lineage_id))
    except ResealError as error:
        return ReceiptVerification(V.HASH_MISMATCH, f"checkpoint does not verify: {error}", None, None)
    proven = verify_record_proof(receipt["record"], receipt["inclusion"], checkpoint, lineage_id)
    if proven.verdict != V.VERIFIED_INTACT:
        return ReceiptVerification(proven.verdict, proven.reason, None, checkpoint)
    seq = proven.record["header"]["monotonicSequenceNumber"]  # type: ignore[index]
    return ReceiptVerification(
        V.VERIFIED_INTACT,
        f"record seq {seq} is leaf {receipt['inclusion']['leafIndex']} of the signed checkpoint of {checkpoint.size} records",
        proven.record,
        checkpoint,
    )


# --- signed outcomes -------------------------------------------------------------------------

OUTCOME_NOTE_TAG: Final = "reseal/v1/outcome"
_STATEMENT_FIELDS: Final = (
    "v", "kind", "log", "stage", "reason", "lineageId", "residualId", "messageId", "requestDigest", "atMs", "contentDigest",
)  # fmt: skip
STAGES: Final = ("GUARD", "SEALER")


def request_digest(request: Any) -> str:
    """``reseal/v1/write-request`` over the ``ResidualWriteRequest`` exactly as published."""
    return hash_canonical(HashDomain.WRITE_REQUEST, request)


def rejection_content_digest(rejection: Mapping[str, Any]) -> str:
    """``reseal/v1/outcome-content`` of a stored rejection's details."""
    fields = ("issues", "rejectedVariables", "requestViolations", "verdictDigest", "bodyDigest", "bodyPreview")
    return hash_canonical(
        HashDomain.OUTCOME_CONTENT, {"v": 1, "kind": "REJECTED", **{f: rejection.get(f) for f in fields}}
    )


def conflict_content_digest(conflict: Mapping[str, Any]) -> str:
    """``reseal/v1/outcome-content`` of a stored conflict's details."""
    fields = ("detail", "attemptedHeader", "expectedHead", "observedHead")
    return hash_canonical(
        HashDomain.OUTCOME_CONTENT, {"v": 1, "kind": "CONFLICT", **{f: conflict.get(f) for f in fields}}
    )


def open_outcome(note: str, key: NoteVerifierKey, log_name: str) -> dict[str, Any]:
    """Verifies a signed outcome note (docs/verifiable-log.md, "Signed outcomes") and returns its
    statement ``{ v, kind, log, stage, reason, lineageId, residualId, messageId, requestDigest,
    atMs, contentDigest }``. To read a stored refusal, use :func:`open_outcome_of_stage`, which
    picks the keys of its stage.

    :raises OutcomeVerificationError: a signature, shape or log that does not match
    """
    try:
        text = verify_note(note, key)
    except ResealError as error:
        raise OutcomeVerificationError(str(error)) from error
    lines = text.split("\n")
    if len(lines) != 3 or lines[0] != OUTCOME_NOTE_TAG or lines[2] != "":
        raise OutcomeVerificationError(f"not a {OUTCOME_NOTE_TAG} note")
    try:
        statement = parse_strict_json(lines[1], "outcome statement")
    except InvalidInputError as error:
        raise OutcomeVerificationError(f"statement is not JSON: {error}") from error
    check = Checker()
    if check.obj(statement, "", _STATEMENT_FIELDS):
        if statement.get("v") != 1 or type(statement.get("v")) is not int:
            check.add("v", "expected 1")
        check.enum(statement.get("kind"), "kind", ("REJECTED", "CONFLICT"))
        check.string(statement.get("log"), "log", 256, 1)
        check.enum(statement.get("stage"), "stage", STAGES)
        check.string(statement.get("reason"), "reason", 64, 1)
        for name in ("lineageId", "residualId"):
            if statement.get(name) is not None:
                check.identifier(statement.get(name), name)
        check.string(statement.get("messageId"), "messageId", 256)
        if statement.get("requestDigest") is not None:
            check.hex_digest(statement.get("requestDigest"), "requestDigest")
        check.safe_int(statement.get("atMs"), "atMs")
        check.hex_digest(statement.get("contentDigest"), "contentDigest")
    if check.issues:
        raise OutcomeVerificationError(
            f"malformed statement at {check.issues[0].path or '<root>'}: {check.issues[0].message}"
        )
    if statement["log"] != log_name:
        raise OutcomeVerificationError(f"statement of log {statement['log']}, not {log_name}")
    return statement  # type: ignore[no-any-return]


def outcome_key_roles(stage: str) -> tuple[str, ...]:
    """The keys whose signature makes an outcome of ``stage`` (docs/verifiable-log.md, "Signed
    outcomes"), in the order tried: ``GUARD`` the guard key alone; ``SEALER`` the sealer key, then
    the log key, which signed the sealer's refusals stored before the sealer key (migration). A
    note of the guard key claiming ``SEALER``, or of the sealer key claiming ``GUARD``, is no outcome.
    """
    return ("guard",) if stage == "GUARD" else ("sealer", "log")


def outcome_key_name(role: str, log_name: str) -> str:
    """The signed-note key name of an outcome key: ``<logName>/guard``, ``<logName>/sealer``, or
    the log name for the log key."""
    return {"guard": f"{log_name}/guard", "sealer": f"{log_name}/sealer"}.get(role, log_name)


def open_outcome_of_stage(note: str, stage: str, keys: Mapping[str, NoteVerifierKey], log_name: str) -> dict[str, Any]:
    """Opens the signed outcome of a refusal of ``stage`` (:func:`open_outcome`) with the keys
    :func:`outcome_key_roles` names for it, taken from ``keys`` (``{"guard", "sealer", "log"}``; a
    missing one is not tried), and requires the statement to name that same stage. A key whose
    name is not its role's is refused, so a key in the wrong slot never widens who may sign.

    :raises OutcomeVerificationError: no key of the stage verifies the note, or the statement names
        another stage
    """
    failures: list[str] = []
    for role in outcome_key_roles(stage):
        key = keys.get(role)
        if key is None:
            continue
        expected = outcome_key_name(role, log_name)
        if key.name != expected:
            raise OutcomeVerificationError(f"the {role} key names {key.name}, not {expected}")
        try:
            statement = open_outcome(note, key, log_name)
        except OutcomeVerificationError as error:
            failures.append(f"{role} key: {error}")
            continue
        if statement["stage"] != stage:
            raise OutcomeVerificationError(f"a {role}-key statement of stage {statement['stage']}, not {stage}")
        return statement
    raise OutcomeVerificationError("; ".join(failures) if failures else f"no verifier key for stage {stage}")


def _differing(expected: Mapping[str, Any], statement: Mapping[str, Any], kind: str) -> None:
    differing = [k for k in _STATEMENT_FIELDS if expected[k] != statement.get(k)]
    if differing:
        raise OutcomeVerificationError(f"stored {kind} differs in {', '.join(differing)}")


def check_rejection(rejection: Mapping[str, Any], statement: Mapping[str, Any]) -> None:
    """Every field of a stored rejection matches its signed statement.

    :raises OutcomeVerificationError: naming the fields that differ
    """
    expected = {
        "v": 1, "kind": "REJECTED", "log": statement.get("log"), "stage": rejection.get("stage"),
        "reason": rejection.get("reason"), "lineageId": rejection.get("lineageId"),
        "residualId": rejection.get("residualId"), "messageId": rejection.get("messageId"),
        "requestDigest": rejection.get("requestDigest"), "atMs": rejection.get("atMs"),
        "contentDigest": rejection_content_digest(rejection),
    }  # fmt: skip
    _differing(expected, statement, "rejection")


def check_conflict(conflict: Mapping[str, Any], statement: Mapping[str, Any]) -> None:
    """Every field of a stored conflict matches its signed statement (stage ``SEALER``).

    :raises OutcomeVerificationError: naming the fields that differ
    """
    expected = {
        "v": 1, "kind": "CONFLICT", "log": statement.get("log"), "stage": "SEALER",
        "reason": conflict.get("reason"), "lineageId": conflict.get("lineageId"),
        "residualId": conflict.get("residualId"), "messageId": conflict.get("messageId"),
        "requestDigest": conflict.get("requestDigest"), "atMs": conflict.get("atMs"),
        "contentDigest": conflict_content_digest(conflict),
    }  # fmt: skip
    _differing(expected, statement, "conflict")
