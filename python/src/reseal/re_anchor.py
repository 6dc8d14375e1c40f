"""The re-anchor statement a re-anchored deployment log's leaves commit to (docs/deployment-log.md,
"Re-anchor"), as the TypeScript ``verifyReAnchorStatement`` and ``reAnchoredLeaf``
(``shared/integrator/re-anchor-statement.ts``, ``re-anchored-leaf.ts``) check it: a signed note
whose text is a statement of the checkpoint's origin, signed by a policy log key of that origin;
from its re-anchor leaf on, every leaf is
``SHA-256("reseal/v1/deployment-leaf-re-anchored" || 0x00 || indexRoot || statementHash)``."""

from __future__ import annotations

import hashlib
import re
from typing import Final

from .canonical import HashDomain, hash_bytes
from .errors import ResealError
from .log import Checkpoint, parse_signed_note, verify_note
from .witness import TlogPolicy

__all__ = ["checked_re_anchor", "re_anchored_leaf"]

_STATEMENT: Final = re.compile(
    r"reseal/v1/re-anchor\n"
    r"origin (?P<origin>\S+)\n"
    r"restored (?P<restored>0|[1-9][0-9]{0,15}) [A-Za-z0-9+/]{43}=\n"
    r"lost (?:0|[1-9][0-9]{0,15}) [A-Za-z0-9+/]{43}=\n"
    r"time (?:0|[1-9][0-9]{0,15})\n"
    r"reason [^\n]{1,256}\n"
)


def re_anchored_leaf(index_root: bytes, statement_hash: bytes) -> bytes:
    """The re-anchored deployment leaf of ``index_root`` under the statement hash (both 32 bytes)."""
    tag = HashDomain.DEPLOYMENT_LEAF_RE_ANCHORED.encode("ascii") + b"\x00"
    return hashlib.sha256(tag + bytes(index_root) + bytes(statement_hash)).digest()


def checked_re_anchor(note: str | None, policy: TlogPolicy, checkpoint: Checkpoint) -> bytes | str | None:
    """The statement hash (32 bytes) the checkpoint's last leaf commits to; ``None`` when no
    statement is shown or the checkpoint predates its re-anchor leaf (a plain leaf then); else the
    reason to refuse it (``RE_ANCHOR_INVALID``): malformed, of another origin, or not signed by a
    policy log key of the checkpoint's origin. Never raises for a bad note."""
    if note is None:
        return None
    try:
        text, _ = parse_signed_note(note)
    except ResealError as error:
        return f"the re-anchor statement is refused: malformed: {error}"
    parsed = _STATEMENT.fullmatch(text)
    if parsed is None:
        return "the re-anchor statement is refused: malformed: not the six lines of a statement"
    if parsed["origin"] != checkpoint.origin:
        return f"the re-anchor statement is refused: it is of origin {parsed['origin']}, not {checkpoint.origin}"
    signed = False
    for key, _ in policy.logs:
        if key.name != checkpoint.origin:
            continue
        try:
            verify_note(note, key)
            signed = True
        except ResealError:
            continue
    if not signed:
        return "the re-anchor statement is refused: not signed by the log key"
    if int(parsed["restored"]) >= checkpoint.size:
        return None
    return bytes.fromhex(hash_bytes(HashDomain.RE_ANCHOR, text.encode("utf-8")))
