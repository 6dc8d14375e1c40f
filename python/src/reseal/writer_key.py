"""A writer key on the client (docs/authorship.md, "Writer keys on the client"): an Ed25519
private key from a PKCS #8 PEM, as ``reseal writer-key new`` writes it, that signs each write."""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
    load_pem_private_key,
)

from .authorship import request_signing_digest
from .errors import InputIssue, InvalidInputError

__all__ = ["WriterKey"]


class WriterKey:
    """An Ed25519 writer key and the ``keyId`` its writes are recorded under."""

    def __init__(self, key_id: str, private_key: Ed25519PrivateKey) -> None:
        self.key_id = key_id
        self._private_key = private_key
        raw = private_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.public_key = base64.b64encode(raw).decode("ascii")
        """Base64 of the raw 32-byte public key, as a lineage policy names it."""

    @classmethod
    def from_pem(cls, key_id: str, pem: str | bytes) -> WriterKey:
        """:raises InvalidInputError: when ``pem`` is not a PKCS #8 PEM Ed25519 private key"""
        try:
            key = load_pem_private_key(pem.encode() if isinstance(pem, str) else pem, password=None)
        except (ValueError, TypeError) as error:
            raise InvalidInputError(
                "writer key", [InputIssue("", f"not a PKCS #8 PEM private key ({error})")]
            ) from error
        if not isinstance(key, Ed25519PrivateKey):
            raise InvalidInputError("writer key", [InputIssue("", "not an Ed25519 private key")])
        return cls(key_id, key)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> WriterKey:
        """The key kept in a PEM file, recorded under the file's base name without ``.pem`` (as the
        TypeScript client's ``writerKeyFile``): read when the file exists, else made and written
        there (mode 0600, its directory created; a key another process wrote first is read).

        :raises InvalidInputError: when the file holds no PKCS #8 PEM Ed25519 private key
        :raises OSError: when the file cannot be read
        """
        file = Path(path)
        key_id = re.sub(r"\.pem$", "", file.name, flags=re.IGNORECASE) or "writer"
        if not file.exists():
            key = Ed25519PrivateKey.generate()
            pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
            file.parent.mkdir(parents=True, exist_ok=True)
            try:
                fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                return cls.from_pem(key_id, file.read_bytes())
            with os.fdopen(fd, "wb") as out:
                out.write(pem)
            return cls(key_id, key)
        return cls.from_pem(key_id, file.read_bytes())

    def policy(self) -> dict[str, Any]:
        """The sole-writer lineage policy of this key (docs/authorship.md, "Self-certifying lineage ids")."""
        return {"v": 1, "writers": [{"keyId": self.key_id, "publicKey": self.public_key}], "recoveryKeys": []}

    def sign_request(self, request: Mapping[str, Any], signed_at_ms: int) -> dict[str, Any]:
        """``request`` with its ``writer`` block: this key's signature over the signed-write digest
        (any writer block it had is replaced)."""
        unsigned = {k: v for k, v in request.items() if k != "writer"}
        block = {"keyId": self.key_id, "publicKey": self.public_key, "signedAtMs": signed_at_ms}
        signature = self._private_key.sign(request_signing_digest(unsigned, block))
        return {**unsigned, "writer": {**block, "signature": base64.b64encode(signature).decode("ascii")}}
