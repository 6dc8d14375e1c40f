"""RFC 8785 canonical form and Reseal's domain-separated hashes (docs/canonical-form.md).

The bytes come from the ``rfc8785`` library. Reseal's policy refuses more than RFC 8785 does, so
every value is checked first, in canonical order, and the first offending value is named by its
JSON-pointer-like path, as the TypeScript core names it:

- integers beyond ±(2^53 − 1) are refused, integral floats too (``1e30``): RFC 8785 and the
  ``rfc8785`` library print them, but such a number is only the nearest double of what a sender
  meant ("Number policy");
- NaN and ±Infinity, lone surrogates, non-string keys, nesting deeper than 64, and any type that
  is not exactly ``dict``, ``list``, ``str``, ``int``, ``float``, ``bool`` or ``None`` (tuples,
  subclasses, enums: nothing is coerced).
"""

from __future__ import annotations

import hashlib
import math
from typing import Any, Final

import rfc8785

from .errors import CanonicalizationError

__all__ = [
    "MAX_JSON_DEPTH",
    "MAX_SAFE_INTEGER",
    "HashDomain",
    "HASH_DOMAINS",
    "SEAL_DEDUP_TAG",
    "canonical_json",
    "canonical_bytes",
    "hash_canonical",
    "hash_bytes",
    "seal_dedup_id",
    "utf16_key",
    "is_well_formed",
]

MAX_JSON_DEPTH: Final = 64
"""Most nested arrays/objects the canonical form accepts."""

MAX_SAFE_INTEGER: Final = 2**53 - 1
"""Largest integer every party reads exactly (ECMAScript ``Number.MAX_SAFE_INTEGER``)."""


class HashDomain:
    """The domain tags of docs/canonical-form.md, "Tags and input objects" (one per purpose)."""

    PAYLOAD: Final = "reseal/v1/payload"
    RECORD_HEADER: Final = "reseal/v1/record-header"
    GENESIS: Final = "reseal/v1/genesis"
    ENV_KEY: Final = "reseal/v1/env-key"
    COMPOSITE_SEAL: Final = "reseal/v1/precondition-seal"
    MANIFEST: Final = "reseal/v1/manifest"
    VARIABLES: Final = "reseal/v1/variables"
    VERDICT: Final = "reseal/v1/verdict-digest"
    VALUE: Final = "reseal/v1/value"
    TRIAGE_REPORT: Final = "reseal/v1/triage-report"
    WRITE_REQUEST: Final = "reseal/v1/write-request"
    OUTCOME_CONTENT: Final = "reseal/v1/outcome-content"
    INDEX_KEY: Final = "reseal/v1/index-key"
    INDEX_ENTRY: Final = "reseal/v1/index-entry"
    INDEX_LEAF: Final = "reseal/v1/index-leaf"
    INDEX_NODE: Final = "reseal/v1/index-node"
    INDEX_EMPTY: Final = "reseal/v1/index-empty"
    SIGNED_WRITE: Final = "reseal/v1/signed-write"
    WRITER: Final = "reseal/v1/writer"
    BOUNDARY: Final = "reseal/v1/boundary"
    LINEAGE_POLICY: Final = "reseal/v1/lineage-policy"
    DEPLOYMENT_LEAF: Final = "reseal/v1/deployment-leaf"
    DEPLOYMENT_LEAF_RE_ANCHORED: Final = "reseal/v1/deployment-leaf-re-anchored"
    RE_ANCHOR: Final = "reseal/v1/re-anchor"
    HEAD_STATE: Final = "reseal/v1/head-state"
    HEAD_STATE_BATCH: Final = "reseal/v1/head-state-batch"
    HEAD_STATE_KEY: Final = "reseal/v1/head-state-key"
    RECORD_BATCH: Final = "reseal/v1/record-batch"


HASH_DOMAINS: Final = frozenset(v for k, v in vars(HashDomain).items() if k.isupper())
"""Every tag of :class:`HashDomain` (the ``0x00`` layout)."""

SEAL_DEDUP_TAG: Final = "reseal/v1/seal-dedup"
"""Tag of a seal request's deduplication id: SHA-256(tag || 0x0A || JCS(request)), a newline layout."""


def utf16_key(text: str) -> bytes:
    """Sort key ordering strings by UTF-16 code units, as RFC 8785 and JavaScript sort."""
    return text.encode("utf-16-be", "surrogatepass")


def is_well_formed(text: str) -> bool:
    """True when ``text`` holds no lone surrogate (it then has a UTF-8 form)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _escape(segment: str) -> str:
    return segment.replace("~", "~0").replace("/", "~1")


def _check(value: Any, path: str, depth: int) -> None:
    kind = type(value)
    if value is None or kind is bool:
        return
    if kind is str:
        if not is_well_formed(value):
            raise CanonicalizationError(path, "lone UTF-16 surrogate in string")
        return
    if kind is int:
        if abs(value) > MAX_SAFE_INTEGER:
            raise CanonicalizationError(path, f"integer {value} is beyond ±(2^53 − 1); send it as a string")
        return
    if kind is float:
        if math.isnan(value) or math.isinf(value):
            raise CanonicalizationError(path, f"{value} has no JSON form")
        if value.is_integer() and abs(value) > MAX_SAFE_INTEGER:
            raise CanonicalizationError(path, f"integer {value!r} is beyond ±(2^53 − 1); send it as a string")
        return
    if kind is list:
        if depth >= MAX_JSON_DEPTH:
            raise CanonicalizationError(path, f"nested deeper than {MAX_JSON_DEPTH}")
        for index, item in enumerate(value):
            _check(item, f"{path}/{index}", depth + 1)
        return
    if kind is dict:
        if depth >= MAX_JSON_DEPTH:
            raise CanonicalizationError(path, f"nested deeper than {MAX_JSON_DEPTH}")
        for key in value:
            if type(key) is not str:
                raise CanonicalizationError(path, f"object key {key!r} is not a string")
            if not is_well_formed(key):
                raise CanonicalizationError(f"{path}/{_escape(key)}", "lone UTF-16 surrogate in key")
        for key in sorted(value, key=utf16_key):
            _check(value[key], f"{path}/{_escape(key)}", depth + 1)
        return
    raise CanonicalizationError(
        path, f"{kind.__name__} is not a JSON value (only dict, list, str, int, float, bool, None)"
    )


def canonical_bytes(value: Any) -> bytes:
    """UTF-8 bytes of the RFC 8785 canonical JSON of ``value`` (docs/canonical-form.md, "Byte layout").

    :raises CanonicalizationError: naming the first offending value, depth first, members in
        canonical order
    """
    _check(value, "", 0)
    try:
        return rfc8785.dumps(value)
    except rfc8785.CanonicalizationError as error:  # pragma: no cover - the check above refuses first
        raise CanonicalizationError("", str(error)) from error


def canonical_json(value: Any) -> str:
    """The RFC 8785 canonical JSON text of ``value``; see :func:`canonical_bytes`."""
    return canonical_bytes(value).decode("utf-8")


def hash_bytes(tag: str, message: bytes) -> str:
    """``lowercase_hex(SHA-256(ASCII(tag) || 0x00 || message))``, 64 characters.

    :raises ValueError: when ``tag`` is not one of :class:`HashDomain`
    """
    if tag not in HASH_DOMAINS:
        raise ValueError(f"unknown hash domain {tag!r}")
    return hashlib.sha256(tag.encode("ascii") + b"\x00" + message).hexdigest()


def hash_canonical(tag: str, value: Any) -> str:
    """Domain-separated hash of the canonical form of ``value`` (docs/canonical-form.md)."""
    return hash_bytes(tag, canonical_bytes(value))


def seal_dedup_id(request: Any) -> str:
    """The seal request deduplication id: ``hex(SHA-256(ASCII(tag) || 0x0A || JCS(request)))``."""
    return hashlib.sha256(SEAL_DEDUP_TAG.encode("ascii") + b"\n" + canonical_bytes(request)).hexdigest()
