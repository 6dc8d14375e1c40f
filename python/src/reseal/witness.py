"""Witness cosignatures and the client's policy (docs/witness.md).

- C2SP tlog-cosignature ``cosignature/v1``: a signed-note line ``— <name> base64(key ID (4) ||
  timestamp (8, big-endian) || Ed25519 signature (64))`` over ``cosignature/v1\\ntime <t>\\n`` and
  the checkpoint body; key ID = the first 4 bytes of ``SHA-256(name || 0x0A || 0x04 || public
  key)`` (docs/witness.md, "Cosignatures").
- C2SP tlog-policy (``log``, ``witness``, ``group``, ``quorum`` lines) and the quorum check with a
  maximum age over cosignature timestamps (docs/witness.md, "Policy", "Quorum and maximum age").
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass
from typing import Final, Literal

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from ._checks import is_safe_int
from .canonical import MAX_SAFE_INTEGER, is_well_formed
from .errors import InputIssue, InvalidInputError, NoteFormatError, NoteVerificationError, PolicyFormatError
from .log import (
    Checkpoint,
    NoteSignature,
    NoteVerifierKey,
    _parse_vkey,
    _strict_b64,
    _valid_key_name,
    _verify_ed25519,
    parse_checkpoint_body,
    parse_signed_note,
    parse_verifier_key,
    verify_note,
)

__all__ = [
    "COSIGNATURE_V1_TYPE",
    "COSIGNATURE_V1_BYTES",
    "CosignerKey",
    "cosigner_key",
    "cosigner_key_id",
    "parse_cosigner_key",
    "format_cosigner_key",
    "cosignature_message",
    "Ed25519Cosigner",
    "verify_cosignature",
    "PolicyWitness",
    "QuorumRule",
    "TlogPolicy",
    "parse_policy",
    "quorum_met",
    "PolicyCheck",
    "check_policy",
]

COSIGNATURE_V1_TYPE: Final = 0x04
"""Signature type byte of ``cosignature/v1`` keys (a note key is 0x01, so neither passes for the other)."""

COSIGNATURE_V1_BYTES: Final = 8 + 64
"""Bytes of a cosignature after the key ID: timestamp (8) and Ed25519 signature (64)."""

_EM_DASH_SPACE: Final = "\u2014 "


@dataclass(frozen=True)
class CosignerKey:
    """A witness's cosigner key: name, 4-byte key ID, 32-byte Ed25519 public key."""

    name: str
    key_id: bytes
    public_key: bytes


def cosigner_key_id(name: str, public_key: bytes) -> bytes:
    """First 4 bytes of ``SHA-256(UTF-8(name) || 0x0A || 0x04 || public key)``.

    :raises InvalidInputError: a name with white space, ``+`` or control characters, or a key not 32 bytes
    """
    if not _valid_key_name(name):
        raise InvalidInputError(
            "cosigner key", [InputIssue("name", 'expected a non-empty name without white space, "+" or controls')]
        )
    if not isinstance(public_key, (bytes, bytearray)) or len(public_key) != 32:
        raise InvalidInputError("cosigner key", [InputIssue("publicKey", "expected 32 raw bytes")])
    return hashlib.sha256(name.encode() + bytes([0x0A, COSIGNATURE_V1_TYPE]) + bytes(public_key)).digest()[:4]


def cosigner_key(name: str, public_key: bytes) -> CosignerKey:
    """The cosigner key of a name and a raw 32-byte Ed25519 public key."""
    return CosignerKey(name, cosigner_key_id(name, public_key), bytes(public_key))


def format_cosigner_key(key: CosignerKey) -> str:
    """``<name>+<8 hex of key ID>+<base64(0x04 || public key)>``."""
    if cosigner_key_id(key.name, key.public_key) != key.key_id:
        raise InvalidInputError("cosigner key", [InputIssue("keyId", "is not the key ID of this name and key")])
    encoded = base64.b64encode(bytes([COSIGNATURE_V1_TYPE]) + key.public_key).decode()
    return f"{key.name}+{key.key_id.hex()}+{encoded}"


def parse_cosigner_key(text: str) -> CosignerKey:
    """Parses a cosigner vkey; refuses any type other than 0x04 (a log's note key included).

    :raises InvalidInputError: naming the bad part (``name``, ``keyId``, ``key``)
    """
    name, key_id, public_key = _parse_vkey(
        text,
        what="cosigner key",
        id_path="keyId",
        id_word="key ID",
        signature_type=COSIGNATURE_V1_TYPE,
        wrong_type=lambda found: f"signature type {found}, expected 4 (cosignature/v1)",
        key_id_of=cosigner_key_id,
    )
    return CosignerKey(name, key_id, public_key)


def cosignature_message(body: str, timestamp: int) -> bytes:
    """``cosignature/v1\\ntime <timestamp>\\n<body>`` in UTF-8: what a witness signs.

    :raises NoteFormatError: ``body`` is empty or does not end with a newline
    :raises InvalidInputError: ``timestamp`` is not POSIX seconds within 0..2^53 − 1
    """
    if type(body) is not str or body == "" or not body.endswith("\n") or not is_well_formed(body):
        raise NoteFormatError("text", "a checkpoint body is non-empty and ends with a newline")
    if not is_safe_int(timestamp):
        raise InvalidInputError(
            "cosignature", [InputIssue("timestamp", "expected POSIX seconds, a safe non-negative integer")]
        )
    return f"cosignature/v1\ntime {timestamp}\n{body}".encode()


class Ed25519Cosigner:
    """Cosigns checkpoints with a local Ed25519 key (tests, demos; a deployed witness signs with KMS).

    :param name: the cosigner name, e.g. ``reseal/witness/<stackName>``
    :param seed: the 32-byte private seed
    """

    def __init__(self, name: str, seed: bytes) -> None:
        if not isinstance(seed, (bytes, bytearray)) or len(seed) != 32:
            raise InvalidInputError("cosigner", [InputIssue("seed", "expected 32 bytes")])
        self._key = Ed25519PrivateKey.from_private_bytes(bytes(seed))
        self.key = cosigner_key(name, self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw))

    def cosign(self, body: str, timestamp: int) -> str:
        """The ``cosignature/v1`` line (ending in a newline) for a checkpoint body at ``timestamp``."""
        signature = self._key.sign(cosignature_message(body, timestamp))
        blob = self.key.key_id + timestamp.to_bytes(8, "big") + signature
        return f"{_EM_DASH_SPACE}{self.key.name} {base64.b64encode(blob).decode()}\n"


def _line_signature(line: str | NoteSignature) -> NoteSignature | None:
    if isinstance(line, NoteSignature):
        return line
    if type(line) is not str:
        return None
    text = line[:-1] if line.endswith("\n") else line
    if not text.startswith(_EM_DASH_SPACE):
        return None
    parts = text[len(_EM_DASH_SPACE) :].split(" ")
    blob = _strict_b64(parts[1]) if len(parts) == 2 else None
    if blob is None or len(blob) <= 4:
        return None
    return NoteSignature(parts[0], blob[:4], blob[4:])


def _claims(signature: NoteSignature, key: CosignerKey) -> bool:
    return signature.name == key.name and signature.key_hash == key.key_id


def verify_cosignature(body: str, line: str | NoteSignature, key: CosignerKey) -> int | None:
    """The timestamp of a valid ``cosignature/v1`` line by ``key`` over the checkpoint ``body``,
    else ``None`` (another name or key ID, not 72 bytes, a timestamp beyond 2^53 − 1, another
    body, a bad signature). ``line`` is the text of one signature line or a parsed one. Never raises.
    """
    signature = _line_signature(line)
    if signature is None or not _claims(signature, key) or len(signature.signature) != COSIGNATURE_V1_BYTES:
        return None
    timestamp = int.from_bytes(signature.signature[:8], "big")
    if timestamp > MAX_SAFE_INTEGER:
        return None
    try:
        message = cosignature_message(body, timestamp)
    except InvalidInputError:
        return None
    return timestamp if _verify_ed25519(key.public_key, message, signature.signature[8:]) else None


# --- tlog-policy ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PolicyWitness:
    """A policy's witness: its name in the policy, its cosigner key, its submission URL if given."""

    name: str
    key: CosignerKey
    url: str | None = None


@dataclass(frozen=True)
class QuorumRule:
    """A node of the quorum rule: ``NONE``, a ``WITNESS`` (by policy name), or a ``GROUP`` met when
    at least ``threshold`` of its ``members`` are."""

    kind: Literal["NONE", "WITNESS", "GROUP"]
    name: str = ""
    threshold: int = 0
    members: tuple[QuorumRule, ...] = ()


@dataclass(frozen=True)
class TlogPolicy:
    """A parsed tlog-policy: accepted ``logs`` (key name = origin) with URLs, the ``witnesses``
    in order, and the ``quorum`` rule with groups resolved."""

    logs: tuple[tuple[NoteVerifierKey, str | None], ...]
    witnesses: tuple[PolicyWitness, ...]
    quorum: QuorumRule


MAX_POLICY_LOGS: Final = 32
MAX_POLICY_WITNESSES: Final = 64
MAX_POLICY_GROUPS: Final = 32
MAX_POLICY_BYTES: Final = 64 * 1024
_NUMBER: Final = re.compile(r"[1-9][0-9]{0,3}")
_SPLIT: Final = re.compile(r"[ \t]+")


def parse_policy(text: str) -> TlogPolicy:
    """Reads a C2SP tlog-policy text (docs/witness.md, "Policy").

    :raises PolicyFormatError: naming the line: a control character other than tab (CRLF
      included), an unknown keyword, a wrong number of items, a log vkey that is not a note key
      (type 0x01) or a witness vkey not a cosigner key (0x04), a duplicate public key or name, a
      name used before its line, ``none`` as a member, a member listed twice, a threshold outside
      1..n, no or a second quorum line, more than 32 logs, 64 witnesses or 32 groups, or a text
      over 64 KiB
    """
    if type(text) is not str or not is_well_formed(text):
        raise PolicyFormatError("", "expected a well-formed text")
    if len(text.encode()) > MAX_POLICY_BYTES:
        raise PolicyFormatError("", f"the policy exceeds {MAX_POLICY_BYTES} bytes")
    logs: list[tuple[NoteVerifierKey, str | None]] = []
    witnesses: list[PolicyWitness] = []
    names: dict[str, QuorumRule] = {"none": QuorumRule("NONE")}
    log_keys: set[bytes] = set()
    witness_keys: set[bytes] = set()
    groups = 0
    quorum: QuorumRule | None = None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    for i, line in enumerate(lines):
        at = f"line {i + 1}"
        if any((ord(c) < 0x20 and c != "\t") or ord(c) == 0x7F for c in line):
            raise PolicyFormatError(at, "holds a control character other than tab")
        items = [item for item in _SPLIT.split(line) if item]
        if not items or items[0].startswith("#"):
            continue
        keyword, args = items[0], items[1:]

        def define(name: str, rule: QuorumRule, at: str = at) -> None:
            if name in names:
                raise PolicyFormatError(at, f'name "{name}" is already defined')
            names[name] = rule

        if keyword == "log":
            if not 1 <= len(args) <= 2:
                raise PolicyFormatError(at, 'expected "log <vkey> [<url>]"')
            try:
                log_key = parse_verifier_key(args[0])
            except InvalidInputError as error:
                raise PolicyFormatError(at, f"log vkey: {error.issues[0].message}") from error
            if log_key.public_key in log_keys:
                raise PolicyFormatError(at, "duplicate log key")
            log_keys.add(log_key.public_key)
            if len(logs) >= MAX_POLICY_LOGS:
                raise PolicyFormatError(at, f"more than {MAX_POLICY_LOGS} logs")
            logs.append((log_key, args[1] if len(args) == 2 else None))
        elif keyword == "witness":
            if not 2 <= len(args) <= 3:
                raise PolicyFormatError(at, 'expected "witness <name> <vkey> [<url>]"')
            try:
                key = parse_cosigner_key(args[1])
            except InvalidInputError as error:
                raise PolicyFormatError(at, f"witness vkey: {error.issues[0].message}") from error
            if key.public_key in witness_keys:
                raise PolicyFormatError(at, "duplicate witness key")
            witness_keys.add(key.public_key)
            if len(witnesses) >= MAX_POLICY_WITNESSES:
                raise PolicyFormatError(at, f"more than {MAX_POLICY_WITNESSES} witnesses")
            define(args[0], QuorumRule("WITNESS", args[0]))
            witnesses.append(PolicyWitness(args[0], key, args[2] if len(args) == 3 else None))
        elif keyword == "group":
            if len(args) < 3:
                raise PolicyFormatError(at, 'expected "group <name> all|any|<k> <name>..."')
            name, k, member_names = args[0], args[1], args[2:]
            members: list[QuorumRule] = []
            seen: set[str] = set()
            for member in member_names:
                if member == "none":
                    raise PolicyFormatError(at, '"none" cannot be a group member')
                if member not in names:
                    raise PolicyFormatError(at, f'member "{member}" is not defined above')
                if member in seen:
                    raise PolicyFormatError(at, f'member "{member}" is listed twice')
                seen.add(member)
                members.append(names[member])
            n = len(members)
            threshold = n if k == "all" else 1 if k == "any" else int(k) if _NUMBER.fullmatch(k) else 0
            if not 1 <= threshold <= n:
                raise PolicyFormatError(at, f'threshold "{k}": expected all, any or a number in 1..{n}')
            groups += 1
            if groups > MAX_POLICY_GROUPS:
                raise PolicyFormatError(at, f"more than {MAX_POLICY_GROUPS} groups")
            define(name, QuorumRule("GROUP", name, threshold, tuple(members)))
        elif keyword == "quorum":
            if len(args) != 1:
                raise PolicyFormatError(at, 'expected "quorum <name>"')
            if quorum is not None:
                raise PolicyFormatError(at, "a second quorum line")
            if args[0] not in names:
                raise PolicyFormatError(at, f'quorum "{args[0]}" is not defined above')
            quorum = names[args[0]]
        else:
            raise PolicyFormatError(at, f'unknown keyword "{keyword}"')
    if quorum is None:
        raise PolicyFormatError("", "no quorum line")
    return TlogPolicy(tuple(logs), tuple(witnesses), quorum)


def quorum_met(rule: QuorumRule, present: frozenset[str] | set[str]) -> bool:
    """Whether ``rule`` holds when exactly the witnesses named in ``present`` have cosigned."""
    if rule.kind == "NONE":
        return True
    if rule.kind == "WITNESS":
        return rule.name in present
    return sum(1 for member in rule.members if quorum_met(member, present)) >= rule.threshold


@dataclass(frozen=True)
class PolicyCheck:
    """The outcome of :func:`check_policy`.

    ``verdict`` is ``ACCEPTED`` or a refusal: ``UNKNOWN_LOG``, ``LOG_SIGNATURE_INVALID``,
    ``FORGED_COSIGNATURE``, ``QUORUM_STALE`` (only cosignatures older than the maximum age, or from
    the future, would meet the quorum) or ``QUORUM_NOT_MET``. When accepted: ``checkpoint``, the
    fresh ``witnesses`` as ``(policy name, timestamp)`` newest first, ``quorum_time`` (the oldest
    timestamp among the newest cosignatures that meet the quorum) and ``fresh_until`` =
    ``quorum_time + max_age_seconds``; both ``None`` for ``quorum none``.
    """

    verdict: Literal[
        "ACCEPTED", "UNKNOWN_LOG", "LOG_SIGNATURE_INVALID", "FORGED_COSIGNATURE", "QUORUM_STALE", "QUORUM_NOT_MET"
    ]
    reason: str = ""
    checkpoint: Checkpoint | None = None
    witnesses: tuple[tuple[str, int], ...] = ()
    quorum_time: int | None = None
    fresh_until: int | None = None

    @property
    def accepted(self) -> bool:
        """True for ``ACCEPTED``."""
        return self.verdict == "ACCEPTED"


def _seconds(value: object, path: str, minimum: int) -> None:
    if type(value) is not int or not minimum <= value <= MAX_SAFE_INTEGER:
        kind = "positive" if minimum else "non-negative"
        raise InvalidInputError("policy check", [InputIssue(path, f"expected a safe {kind} integer of seconds")])


def check_policy(
    note: str, policy: TlogPolicy, *, max_age_seconds: int, now_seconds: int, max_skew_seconds: int = 60
) -> PolicyCheck:
    """Whether a cosigned checkpoint note meets ``policy`` at ``now_seconds`` (docs/witness.md,
    "Quorum and maximum age"): signed by the policy log whose key name is its origin, every line
    claiming a policy witness a valid cosignature of it, and the witnesses whose newest
    cosignature is no older than ``max_age_seconds`` and at most ``max_skew_seconds`` ahead meeting
    the quorum. Freshness comes from cosignature timestamps only.

    :raises NoteFormatError, CheckpointFormatError: the note or its body is malformed
    :raises InvalidInputError: a maximum age, clock or skew that is not whole seconds
    """
    _seconds(max_age_seconds, "maxAgeSeconds", 1)
    _seconds(now_seconds, "nowSeconds", 0)
    _seconds(max_skew_seconds, "maxSkewSeconds", 0)
    if not isinstance(policy, TlogPolicy):
        raise InvalidInputError("policy check", [InputIssue("policy", "expected a parsed TlogPolicy")])
    text, signatures = parse_signed_note(note)
    parsed = parse_checkpoint_body(text)
    checkpoint = Checkpoint(parsed.origin, parsed.size, parsed.root_hash, note)
    log_keys = [key for key, _ in policy.logs if key.name == checkpoint.origin]
    if not log_keys:
        return PolicyCheck("UNKNOWN_LOG", f'no log of the policy signs origin "{checkpoint.origin}"')
    if not any(_log_signed(note, key) for key in log_keys):
        return PolicyCheck("LOG_SIGNATURE_INVALID", "no valid signature by the log key")
    valid: list[tuple[str, int]] = []
    for witness in policy.witnesses:
        newest: int | None = None
        for signature in (s for s in signatures if _claims(s, witness.key)):
            timestamp = verify_cosignature(text, signature, witness.key)
            if timestamp is None:
                return PolicyCheck(
                    "FORGED_COSIGNATURE", f'a cosignature line of witness "{witness.name}" does not verify'
                )
            newest = timestamp if newest is None else max(newest, timestamp)
        if newest is not None:
            valid.append((witness.name, newest))
    if policy.quorum.kind == "NONE":
        return PolicyCheck("ACCEPTED", checkpoint=checkpoint)
    fresh = sorted(
        (w for w in valid if now_seconds - max_age_seconds <= w[1] <= now_seconds + max_skew_seconds),
        key=lambda w: -w[1],
    )
    present: set[str] = set()
    for name, timestamp in fresh:
        present.add(name)
        if quorum_met(policy.quorum, present):
            return PolicyCheck(
                "ACCEPTED",
                checkpoint=checkpoint,
                witnesses=tuple(fresh),
                quorum_time=timestamp,
                fresh_until=timestamp + max_age_seconds,
            )
    if quorum_met(policy.quorum, {name for name, _ in valid}):
        return PolicyCheck(
            "QUORUM_STALE",
            f"the quorum's cosignatures are older than the maximum age of {max_age_seconds} s (or from the future)",
        )
    return PolicyCheck(
        "QUORUM_NOT_MET",
        f"{len(valid)} valid cosignature(s) of {len(policy.witnesses)} witness(es) do not meet the quorum",
    )


def quorum_cosigned_at(note: str, policy: TlogPolicy) -> int | None:
    """The earliest time, POSIX seconds, by which a quorum of ``policy``'s witnesses had cosigned
    ``note`` (``cosignature/v1`` timestamps; docs/deployment-log.md, "What clients see"; the
    TypeScript ``quorumCosignedAt``): each witness counts from its oldest valid cosignature, and
    the answer is the timestamp at which those counted so far, oldest first, meet the quorum. It is
    when the witnesses vouch the checkpoint existed, which a table writer cannot move. ``None`` for
    ``quorum none``, a quorum not met, a line claiming a policy witness that does not verify, or a
    note that does not parse. Checks no log signature (the caller verified the note). Never raises
    for a bad note."""
    if policy.quorum.kind == "NONE":
        return None
    try:
        text, signatures = parse_signed_note(note)
    except NoteFormatError:
        return None
    oldest: list[tuple[str, int]] = []
    for witness in policy.witnesses:
        first: int | None = None
        for signature in (s for s in signatures if _claims(s, witness.key)):
            timestamp = verify_cosignature(text, signature, witness.key)
            if timestamp is None:
                return None
            first = timestamp if first is None else min(first, timestamp)
        if first is not None:
            oldest.append((witness.name, first))
    present: set[str] = set()
    for name, timestamp in sorted(oldest, key=lambda w: w[1]):
        present.add(name)
        if quorum_met(policy.quorum, present):
            return timestamp
    return None


def _log_signed(note: str, key: NoteVerifierKey) -> bool:
    try:
        verify_note(note, key)
    except NoteVerificationError:
        return False
    return True
