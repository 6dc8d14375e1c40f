"""An operator's re-anchor of a restored deployment log, as a client reads it
(docs/deployment-log.md, "Re-anchor"): the statement note (six lines, one spelling), its hash, the
re-anchored leaves that commit to it, and what a client is shown. A client checks the log's
signature only; the recovery key is the integrator's and the witness's to check, and the
witness's cosignatures of the re-anchored history are what a witnessed policy asks.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from .canonical import HashDomain, hash_bytes
from .errors import ResealError
from .log import NoteVerifierKey, _verify_ed25519, leaf_hash, parse_signed_note

__all__ = [
    "MAX_RE_ANCHOR_REASON",
    "RE_ANCHOR_HEADER",
    "ReAnchorFormatError",
    "ReAnchorNotice",
    "ReAnchorStatement",
    "parse_re_anchor_statement",
    "re_anchor_statement_hash",
    "re_anchored_leaf",
    "re_anchored_leaf_hash",
    "verify_re_anchor_chain",
    "verify_re_anchor_statement",
]

RE_ANCHOR_HEADER: Final = "reseal/v1/re-anchor"
"""First line of every statement."""

MAX_RE_ANCHOR_REASON: Final = 256
"""Longest ``reason``, characters."""

_DECIMAL: Final = re.compile(r"(0|[1-9][0-9]{0,15})")
_CONTROL: Final = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_MAX_SAFE: Final = 2**53 - 1


class ReAnchorFormatError(ResealError):
    """A statement text that is not the one spelling of docs/deployment-log.md, "The statement"."""


@dataclass(frozen=True)
class ReAnchorStatement:
    """The statement's fields: the log's ``origin``, the ``restored`` head the table held and the
    ``lost`` checkpoint the witness had cosigned (each ``(size, 32-byte root)``), ``time_seconds``
    (POSIX) and the operator's ``reason``."""

    origin: str
    restored: tuple[int, bytes]
    lost: tuple[int, bytes]
    time_seconds: int
    reason: str


@dataclass(frozen=True)
class ReAnchorNotice:
    """What a client shows of a re-anchored history (the TypeScript ``ReAnchorNotice``): sizes,
    roots (standard base64, as in checkpoints), ``lost_leaves`` (``lost_size − restored_size``),
    when and why, the statement hash (hex) every re-anchored leaf commits to, and the note."""

    restored_size: int
    restored_root_hash: str
    lost_size: int
    lost_root_hash: str
    lost_leaves: int
    time_seconds: int
    reason: str
    statement_hash: str
    note: str


def _head(words: list[str], name: str) -> tuple[int, bytes]:
    if len(words) != 2 or _DECIMAL.fullmatch(words[0]) is None or int(words[0]) > _MAX_SAFE:
        raise ReAnchorFormatError(f"{name}: expected <size> <base64 root> with a decimal size")
    try:
        root = base64.b64decode(words[1], validate=True)
    except (binascii.Error, ValueError) as error:
        raise ReAnchorFormatError(f"{name}: the root is not base64 of 32 bytes") from error
    if len(root) != 32 or base64.b64encode(root).decode() != words[1]:
        raise ReAnchorFormatError(f"{name}: the root is not base64 of 32 bytes")
    return int(words[0]), root


def parse_re_anchor_statement(text: str) -> ReAnchorStatement:
    """Reads a statement text strictly: exactly ``reseal/v1/re-anchor``, then ``origin``,
    ``restored``, ``lost``, ``time`` and ``reason`` lines, each ending in a newline; ``lost`` larger
    than ``restored`` or of its size with another root; a reason of 1–256 printable characters.

    :raises ReAnchorFormatError: naming the line that is wrong
    """
    if not isinstance(text, str) or not text.endswith("\n"):
        raise ReAnchorFormatError("expected text ending in a newline")
    lines = text[:-1].split("\n")
    if len(lines) != 6 or lines[0] != RE_ANCHOR_HEADER:
        raise ReAnchorFormatError(f'expected "{RE_ANCHOR_HEADER}" and five lines: origin, restored, lost, time, reason')

    def field(i: int, name: str) -> str:
        if not lines[i].startswith(f"{name} "):
            raise ReAnchorFormatError(f'line {i + 1} must start with "{name} "')
        return lines[i][len(name) + 1 :]

    origin = field(1, "origin")
    if origin == "" or re.search(r"\s", origin) or _CONTROL.search(origin):
        raise ReAnchorFormatError("origin: expected a non-empty origin without white space")
    restored = _head(field(2, "restored").split(" "), "restored")
    lost = _head(field(3, "lost").split(" "), "lost")
    if lost[0] < restored[0] or (lost[0] == restored[0] and lost[1] == restored[1]):
        raise ReAnchorFormatError("lost: must be larger than the restored head, or of its size with another root")
    time = field(4, "time")
    if _DECIMAL.fullmatch(time) is None or int(time) > _MAX_SAFE:
        raise ReAnchorFormatError("time: expected decimal POSIX seconds")
    reason = field(5, "reason")
    units = len(reason.encode("utf-16-le")) // 2
    if reason == "" or units > MAX_RE_ANCHOR_REASON or _CONTROL.search(reason) or reason != reason.strip():
        raise ReAnchorFormatError(
            f"reason: expected 1–{MAX_RE_ANCHOR_REASON} printable characters on one line, no outer spaces"
        )
    return ReAnchorStatement(origin, restored, lost, int(time), reason)


def re_anchor_statement_hash(text: str) -> bytes:
    """``SHA-256("reseal/v1/re-anchor" || 0x00 || UTF-8(text))``, 32 bytes: what every leaf of the
    re-anchored history commits to (over the text only, not the signatures)."""
    return bytes.fromhex(hash_bytes(HashDomain.RE_ANCHOR, text.encode("utf-8")))


def re_anchored_leaf(index_root: bytes, statement_hash: bytes) -> bytes:
    """A leaf of a re-anchored deployment log: ``SHA-256("reseal/v1/deployment-leaf-re-anchored" ||
    0x00 || indexRoot(32) || statementHash(32))``; its RFC 9162 leaf hash is ``leaf_hash`` of it.

    :raises ValueError: when either hash is not 32 bytes
    """
    if len(index_root) != 32 or len(statement_hash) != 32:
        raise ValueError("expected two 32-byte hashes")
    return bytes.fromhex(hash_bytes(HashDomain.DEPLOYMENT_LEAF_RE_ANCHORED, bytes(index_root) + bytes(statement_hash)))


def re_anchored_leaf_hash(index_root: bytes, statement_hash: bytes) -> bytes:
    """The RFC 9162 leaf hash of :func:`re_anchored_leaf`."""
    return leaf_hash(re_anchored_leaf(index_root, statement_hash))


def verify_re_anchor_statement(
    note: str, origin: str, log_keys: Sequence[NoteVerifierKey]
) -> tuple[ReAnchorStatement, ReAnchorNotice] | str:
    """Verifies a statement note as a client does (the TypeScript ``verifyReAnchorStatement`` with
    no recovery keys): a signed note whose text is a well-formed statement of ``origin``, signed by
    one of ``log_keys`` (a signature line of one of them that fails refuses the note, C2SP
    signed-note). Never raises for a bad note.

    :returns: the statement and its notice, or the reason it is refused
    """
    try:
        text, signatures = parse_signed_note(note)
        statement = parse_re_anchor_statement(text)
    except ResealError as error:
        return f"malformed: {error}"
    if statement.origin != origin:
        return f"the statement is of origin {statement.origin}, not {origin}"
    signed = False
    for key in log_keys:
        for sig in signatures:
            if sig.name != key.name or sig.key_hash != key.key_hash:
                continue
            if not _verify_ed25519(key.public_key, text.encode("utf-8"), sig.signature):
                return "not signed by the log key"
            signed = True
    if not signed:
        return "not signed by the log key"
    digest = re_anchor_statement_hash(text)

    def b64(raw: bytes) -> str:
        return base64.b64encode(raw).decode()

    notice = ReAnchorNotice(
        restored_size=statement.restored[0],
        restored_root_hash=b64(statement.restored[1]),
        lost_size=statement.lost[0],
        lost_root_hash=b64(statement.lost[1]),
        lost_leaves=statement.lost[0] - statement.restored[0],
        time_seconds=statement.time_seconds,
        reason=statement.reason,
        statement_hash=digest.hex(),
        note=note,
    )
    return statement, notice


def re_anchor_time_after_cosignature(time_seconds: int, carrier_cosigned_at_seconds: int | None) -> str | None:
    """Why a statement dated ``time_seconds`` is refused against the time a quorum of the policy's
    witnesses had cosigned the deployment checkpoint that carries it (:func:`reseal.quorum_cosigned_at`),
    or ``None`` when it is no later, or no quorum time is known (``quorum none``). The integrator
    tolerates a statement up to 5 s ahead of its clock; a client holds it to the witnesses' clock, so
    no checkpoint cosigned after the re-anchor reads older than the statement (docs/deployment-log.md,
    "What clients see"; the TypeScript ``reAnchorTimeAfterCosignature``).
    """
    if carrier_cosigned_at_seconds is None or time_seconds <= carrier_cosigned_at_seconds:
        return None
    return (
        f"the re-anchor statement is dated {time_seconds}, {time_seconds - carrier_cosigned_at_seconds} s after the "
        f"policy's witnesses had cosigned the deployment checkpoint that carries it ({carrier_cosigned_at_seconds}): "
        "a statement dated ahead of the witnesses would explain checkpoints cosigned after the re-anchor"
    )


def verify_re_anchor_chain(stored: object, origin: str, log_keys: Sequence[NoteVerifierKey]) -> list[ReAnchorNotice]:
    """The earlier re-anchors a deployment head names (its ``reAnchorChain``, docs/deployment-log.md,
    "Re-anchor", "A chain of re-anchors"), oldest first, each verified as a statement of ``origin``
    signed by one of ``log_keys`` (the TypeScript ``verifyReAnchorChain``). The list is the table's
    claim: an entry that is not such a note breaks the chain there, and only the entries after the
    last broken one are returned. Never raises."""
    if not isinstance(stored, list):
        return []
    chain: list[ReAnchorNotice] = []
    for note in stored:
        verified = verify_re_anchor_statement(note, origin, log_keys) if isinstance(note, str) else None
        if verified is None or isinstance(verified, str):
            chain.clear()
        else:
            chain.append(verified[1])
    return chain
