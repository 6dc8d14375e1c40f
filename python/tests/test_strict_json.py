"""Strict JSON reading (docs/canonical-form.md, "Hostile-input policy: duplicate member names")."""

from __future__ import annotations

import json

import pytest

from reseal import InvalidInputError, StrictJsonError, parse_strict_json


def paths(text: str | bytes) -> list[str]:
    with pytest.raises(StrictJsonError) as caught:
        parse_strict_json(text)
    assert isinstance(caught.value, InvalidInputError)
    return [issue.path for issue in caught.value.issues]


def test_python_json_alone_would_keep_the_last_of_two_members() -> None:
    assert json.loads('{"a": 1, "a": 2}') == {"a": 2}


def test_a_repeated_member_name_is_refused_at_its_path() -> None:
    assert paths('{"a": 1, "a": 2}') == ["a"]
    assert paths('{"variablesUsed": [{"name": "x"}, {"name": "x", "name": "y"}]}') == ["variablesUsed.1.name"]


def test_names_are_compared_after_unescaping_and_without_normalization() -> None:
    assert paths('{"a": 1, "\\u0061": 2}') == ["a"]
    assert parse_strict_json('{"caf\\u00e9": 1, "cafe\\u0301": 2}') == {"caf\u00e9": 1, "cafe\u0301": 2}


def test_proto_twice_is_a_duplicate_and_once_an_ordinary_key() -> None:
    assert paths('{"__proto__": 1, "__proto__": 1}') == ["__proto__"]
    assert parse_strict_json('{"__proto__": {"x": 1}}') == {"__proto__": {"x": 1}}


def test_every_repeat_is_reported_and_the_message_names_it() -> None:
    with pytest.raises(StrictJsonError) as caught:
        parse_strict_json('{"b": {"k\\n": 1, "k\\n": 2}, "a": 1, "a": 3}')
    assert [i.path for i in caught.value.issues] == ["a", "b.k\n"]
    assert 'member name "k\\n" is repeated' in caught.value.issues[1].message


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}'])
def test_non_json_constants_are_refused(text: str) -> None:
    assert paths(text) == [""]


def test_lone_surrogates_are_refused_in_strings_and_names() -> None:
    assert paths('{"a": ["\\ud800"]}') == ["a.0"]
    assert paths('{"\\udc00": 1}') == ["\udc00"]
    assert parse_strict_json('"\\ud83d\\ude00"') == "\U0001f600"


def test_malformed_json_names_line_and_column() -> None:
    with pytest.raises(StrictJsonError, match="line 2 column 1"):
        parse_strict_json('{"a": 1,\n}')


def test_invalid_utf8_and_deep_nesting_are_refused() -> None:
    assert paths(b'"\xff"') == [""]
    with pytest.raises(StrictJsonError, match="nested deeper than 512"):
        parse_strict_json("[" * 513 + "]" * 513)
    assert parse_strict_json("[" * 512 + "]" * 512) is not None
    # Brackets inside strings do not count.
    assert parse_strict_json(json.dumps("[" * 600)) == "[" * 600


def test_numbers_read_as_javascript_reads_them() -> None:
    value = parse_strict_json("[1.0, 1e3, -0.0, 0.5, 12345678901234567890]")
    assert value == [1, 1000, 0, 0.5, 12345678901234567890]
    assert [type(v) for v in value] == [int, int, int, float, int]
