"""How Reseal shows a string it cannot vouch for, as the TypeScript ``escapedText``
(``shared/schemas/escaped-text.ts``; docs/mcp.md, "Untrusted data")."""

from __future__ import annotations

import unicodedata

__all__ = ["escaped_text"]

_CONTROL_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
"""Characters a terminal or a text renderer acts on rather than shows: controls (newline, carriage
return, the ESC of an ANSI sequence, DEL, C1), format characters (bidi overrides, zero-width
ones), line and paragraph separators, and lone surrogates."""


def _escaped(char: str) -> str:
    code = ord(char)
    return f"\\u{{{code:x}}}" if code > 0xFFFF else f"\\u{code:04x}"


def escaped_text(text: str) -> str:
    """``text`` with every control character written as the six characters ``\\uXXXX``
    (``\\u{XXXXX}`` past the BMP), everything else as is: a stored string a table writer may have
    written then neither ends a line, moves a cursor, reorders text nor hides characters."""
    return "".join(_escaped(c) if unicodedata.category(c) in _CONTROL_CATEGORIES else c for c in text)
