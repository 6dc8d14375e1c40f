"""The head-state MAC's message (docs/verifiable-log.md, "Appending"; docs/canonical-form.md), as
the TypeScript ``headStateMessage`` (``shared/log/head-state-mac.ts``) builds it: what the sealer
vouches for, with the records' KMS HMAC key, when it stores a lineage's head. A Python auditor
holding ``kms:VerifyMac`` checks a head item's ``headMac`` against these 32 bytes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .canonical import HashDomain, hash_canonical

__all__ = ["head_state_message"]


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
