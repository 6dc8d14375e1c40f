"""Strict JSON reading (docs/canonical-form.md, "Hostile-input policy: duplicate member names").

Python's ``json`` keeps the last of two members with the same name, reads ``NaN`` and
``Infinity``, and yields lone surrogates from ``\\ud800`` escapes. The same text would then read
differently here and in another party's parser, so :func:`parse_strict_json` refuses each of them.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from .canonical import MAX_SAFE_INTEGER, is_well_formed, utf16_key
from .errors import InputIssue, StrictJsonError

__all__ = ["MAX_PARSE_DEPTH", "parse_strict_json"]

MAX_PARSE_DEPTH: Final = 512
"""Most nested arrays/objects accepted before parsing (the canonical form accepts 64)."""

_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[{]|[\]}]', re.DOTALL)


class _Repeats(dict):  # type: ignore[type-arg]
    """An object whose text repeated member names (kept only until the walk reports them)."""

    repeated: list[str]


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    repeated: list[str] = []
    for key, value in pairs:
        if key in result and key not in repeated:
            repeated.append(key)
        result[key] = value
    if not repeated:
        return result
    marked = _Repeats(result)
    marked.repeated = repeated
    return marked


def _number(text: str) -> float | int:
    # JSON.parse reads every number as a double: 1.0 and 1e3 are the integers 1 and 1000.
    value = float(text)
    if value.is_integer() and abs(value) <= MAX_SAFE_INTEGER:
        return int(value)
    return value


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _key_text(key: str) -> str:
    # Escaped when not printable ASCII, so a message never carries a control character.
    return json.dumps(key)


def _walk(value: Any, path: list[str], issues: list[InputIssue]) -> None:
    where = ".".join(path)
    if isinstance(value, str):
        if not is_well_formed(value):
            issues.append(InputIssue(where, "string holds a lone UTF-16 surrogate"))
        return
    if isinstance(value, list):
        for index, item in enumerate(value):
            _walk(item, [*path, str(index)], issues)
        return
    if isinstance(value, dict):
        if isinstance(value, _Repeats):
            for key in value.repeated:
                issues.append(InputIssue(".".join([*path, key]), f"member name {_key_text(key)} is repeated"))
        for key in sorted(value, key=utf16_key):
            if not is_well_formed(key):
                issues.append(InputIssue(".".join([*path, key]), "member name holds a lone UTF-16 surrogate"))
            _walk(value[key], [*path, key], issues)


def parse_strict_json(text: str | bytes, what: str = "JSON text") -> Any:
    """Parses one JSON text, refusing what two parsers could read differently.

    Refused (``StrictJsonError``, an ``InvalidInputError`` whose ``issues`` name each path):
    a member name repeated in one object at any depth (compared after unescaping, without
    normalization), a lone surrogate in a string or name, ``NaN``/``Infinity``, invalid UTF-8,
    invalid JSON (with line and column), and nesting deeper than :data:`MAX_PARSE_DEPTH`.
    Numbers read as JavaScript reads them: an integral number within ±(2^53 − 1) is an ``int``
    (``1.0`` → ``1``); larger integers stay exact ``int`` values, which the canonical form refuses.

    :param text: the JSON text, or its UTF-8 bytes
    :param what: what the text is, for the error message (``invalid <what> at …``)
    :returns: plain ``dict``/``list``/``str``/``int``/``float``/``bool``/``None`` values
    """
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as error:
            raise StrictJsonError(what, [InputIssue("", f"not UTF-8 (byte {error.start})")]) from error
    if not isinstance(text, str):
        raise StrictJsonError(what, [InputIssue("", "expected a str or bytes JSON text")])
    depth = 0
    for token in _TOKENS.finditer(text):
        char = token.group()[0]
        if char in "[{":
            depth += 1
            if depth > MAX_PARSE_DEPTH:
                raise StrictJsonError(what, [InputIssue("", f"nested deeper than {MAX_PARSE_DEPTH}")])
        elif char in "]}":
            depth -= 1
    try:
        value = json.loads(text, object_pairs_hook=_pairs, parse_float=_number, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        raise StrictJsonError(
            what, [InputIssue("", f"malformed JSON at line {error.lineno} column {error.colno}: {error.msg}")]
        ) from error
    except ValueError as error:
        raise StrictJsonError(what, [InputIssue("", str(error))]) from error
    issues: list[InputIssue] = []
    _walk(value, [], issues)
    if issues:
        raise StrictJsonError(what, issues)
    return value
