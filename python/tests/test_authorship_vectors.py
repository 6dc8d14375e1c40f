"""test/vectors/authorship.json checked from Python alone (docs/authorship.md, "Vectors")."""

from __future__ import annotations

import base64
import hashlib
import json

from conftest import vectors
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from reseal import canonical_bytes

FILE = vectors("authorship.json")


def _digest(tag: str, preimage: str) -> str:
    return hashlib.sha256(tag.encode("ascii") + b"\x00" + preimage.encode("utf-8")).hexdigest()


def test_digests_and_preimages() -> None:
    for part in ("policy", "boundary", "signedWrite", "writer"):
        entry = FILE[part]
        assert _digest(entry["tag"], entry["preimage"]) == entry["digest"]
        # Each preimage is the RFC 8785 form of itself.
        assert canonical_bytes(json.loads(entry["preimage"])).decode("utf-8") == entry["preimage"]
    policy = FILE["policy"]
    assert policy["lineageId"] == f"{policy['label']}.{policy['digest'][:32]}"
    assert FILE["request"]["lineageId"] == policy["lineageId"]


def test_signature_verifies_under_the_seed_key() -> None:
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(FILE["key"]["seedHex"]))
    raw = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    assert base64.b64encode(raw).decode() == FILE["key"]["publicKey"]
    signed = FILE["signedWrite"]
    public = Ed25519PublicKey.from_public_bytes(raw)
    public.verify(base64.b64decode(signed["signature"]), bytes.fromhex(signed["digest"]))
    assert FILE["request"]["writer"]["signature"] == signed["signature"]
