"""Hand-written input checks shared by the validators (the TypeScript core's zod schemas, by rule).

Each check appends :class:`InputIssue` values to a :class:`Checker`; a validator raises once with
every issue (``InvalidInputError``), or turns the first one into a verdict reason.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any, Final, TypeGuard

from .canonical import MAX_SAFE_INTEGER, is_well_formed
from .errors import InputIssue, InvalidInputError

IDENTIFIER: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@/+=-]{0,199}")
HEX_DIGEST: Final = re.compile(r"[0-9a-f]{64}")
NO_CONTROL: Final = re.compile(r"[^\x00-\x1f\x7f]+")
BASE64_MAC: Final = re.compile(r"[A-Za-z0-9+/]{43}=")
RESERVED_KEY: Final = "__proto__"
AUTHORITIES: Final = ("OPERATIONAL", "INFORMATIONAL_ONLY", "HISTORICAL_ATTRIBUTION")


def utf16_length(text: str) -> int:
    """Length in UTF-16 code units (what the TypeScript limits count)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def normal_form(text: str) -> str:
    """NFC of a well-formed text (the form two map keys may not share)."""
    return unicodedata.normalize("NFC", text) if is_well_formed(text) else text


def is_safe_int(value: Any) -> bool:
    """A non-negative integer up to 2^53 − 1 (``bool`` excluded)."""
    return type(value) is int and 0 <= value <= MAX_SAFE_INTEGER


def is_hex_digest(value: Any) -> bool:
    return type(value) is str and HEX_DIGEST.fullmatch(value) is not None


def is_identifier(value: Any) -> bool:
    return type(value) is str and IDENTIFIER.fullmatch(value) is not None


def join(path: str, segment: str | int) -> str:
    return f"{path}.{segment}" if path else str(segment)


class Checker:
    """Collects the issues of one input."""

    def __init__(self) -> None:
        self.issues: list[InputIssue] = []

    def add(self, path: str, message: str) -> None:
        self.issues.append(InputIssue(path, message))

    def raise_if_any(self, what: str) -> None:
        if self.issues:
            raise InvalidInputError(what, self.issues)

    def obj(
        self, value: Any, path: str, required: Iterable[str], optional: Iterable[str] = ()
    ) -> TypeGuard[dict[str, Any]]:
        """A ``dict`` with every required member and no other than ``optional``."""
        if type(value) is not dict:
            self.add(path, "expected an object")
            return False
        required = tuple(required)
        known = set(required) | set(optional)
        unknown = [k for k in value if k not in known]
        if unknown:
            self.add(path, f"unrecognized key(s): {', '.join(repr(k) for k in unknown)}")
        for key in required:
            if key not in value:
                self.add(join(path, key), "required")
        return True

    def string(
        self,
        value: Any,
        path: str,
        max_units: int,
        min_units: int = 0,
        pattern: re.Pattern[str] | None = None,
        message: str = "does not match the expected pattern",
    ) -> TypeGuard[str]:
        if type(value) is not str:
            self.add(path, "expected a string")
            return False
        if not is_well_formed(value):
            self.add(path, "not well-formed Unicode (lone surrogate)")
            return False
        units = utf16_length(value)
        if units > max_units:
            self.add(path, f"at most {max_units} characters")
            return False
        if units < min_units:
            self.add(path, f"at least {min_units} character(s)")
            return False
        if pattern is not None and pattern.fullmatch(value) is None:
            self.add(path, message)
            return False
        return True

    def identifier(self, value: Any, path: str) -> bool:
        if is_identifier(value):
            return True
        self.add(path, "identifier must be 1–200 chars of [A-Za-z0-9._:@/+=-]")
        return False

    def hex_digest(self, value: Any, path: str) -> bool:
        if is_hex_digest(value):
            return True
        self.add(path, "expected 64 lowercase hex characters (SHA-256)")
        return False

    def safe_int(self, value: Any, path: str, minimum: int = 0) -> bool:
        if is_safe_int(value) and value >= minimum:
            return True
        self.add(path, f"expected an integer from {minimum} to 2^53 − 1")
        return False

    def enum(self, value: Any, path: str, allowed: Iterable[str]) -> bool:
        allowed = tuple(allowed)
        if type(value) is str and value in allowed:
            return True
        self.add(path, f"expected one of {', '.join(allowed)}")
        return False

    def boolean(self, value: Any, path: str) -> bool:
        if type(value) is bool:
            return True
        self.add(path, "expected a boolean")
        return False

    def map_key(self, value: Any, path: str) -> bool:
        """An environment key or claim id: 1–512 units, no control characters."""
        return self.string(value, path, 512, 1, NO_CONTROL, "key holds a control character")

    def safe_map(self, value: Any, path: str) -> TypeGuard[dict[str, Any]]:
        """A ``dict`` used as a map: no ``__proto__``, no two keys equal after NFC, valid keys."""
        if type(value) is not dict:
            self.add(path, "expected an object")
            return False
        if RESERVED_KEY in value:
            self.add(path, f'key "{RESERVED_KEY}" is reserved and refused')
            return False
        ok = True
        forms: dict[str, str] = {}
        for key in value:
            if not self.map_key(key, join(path, key)):
                ok = False
                continue
            earlier = forms.setdefault(normal_form(key), key)
            if earlier != key:
                self.add(
                    join(path, key), f"keys {earlier!r} and {key!r} are the same text in different Unicode normal forms"
                )
                ok = False
        return ok

    def unique_names(self, names: list[Any], path_of: Any) -> None:
        """Refuses a name repeated exactly or in another Unicode normal form."""
        seen: dict[str, tuple[int, str]] = {}
        for index, name in enumerate(names):
            if type(name) is not str or not is_well_formed(name):
                continue
            earlier = seen.get(normal_form(name))
            if earlier is None:
                seen[normal_form(name)] = (index, name)
                continue
            first, first_name = earlier
            message = (
                f"duplicate name {name!r} (first at index {first})"
                if first_name == name
                else f"names {first_name!r} (index {first}) and {name!r} are the same text in different Unicode normal forms"
            )
            self.add(path_of(index), message)
