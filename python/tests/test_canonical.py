"""The canonical form and hash tags against test/vectors/canonical.json and rfc8785.json, and
where the ``rfc8785`` library differs from Reseal's policy (docs/canonical-form.md)."""

from __future__ import annotations

import hashlib
import re
from enum import Enum
from typing import Any

import pytest
import rfc8785
from conftest import REPO, vectors

from reseal import (
    HASH_DOMAINS,
    SEAL_DEDUP_TAG,
    CanonicalizationError,
    canonical_bytes,
    canonical_json,
    hash_bytes,
    hash_canonical,
    parse_strict_json,
    seal_dedup_id,
)


def test_canonical_vectors_every_tag() -> None:
    file = vectors("canonical.json")
    assert file["formatVersion"] == 1
    for vector in file["vectors"]:
        assert canonical_json(vector["input"]) == vector["canonical"], vector["name"]
        assert set(vector["hashes"]) == HASH_DOMAINS
        for tag, digest in vector["hashes"].items():
            assert hash_canonical(tag, vector["input"]) == digest, (vector["name"], tag)
            plain = hashlib.sha256(tag.encode() + b"\x00" + vector["canonical"].encode()).hexdigest()
            assert plain == digest


def test_rfc8785_reference_data() -> None:
    file = vectors("rfc8785.json")
    assert [v["name"] for v in file["vectors"]] == ["arrays", "french", "structures", "unicode", "values", "weird"]
    for vector in file["vectors"]:
        value = parse_strict_json(vector["input"])
        if vector["name"] == "values":
            continue
        assert canonical_bytes(value).hex() == vector["canonicalHex"], vector["name"]


def test_values_vector_is_refused_for_its_1e30_and_otherwise_byte_identical() -> None:
    vector = next(v for v in vectors("rfc8785.json")["vectors"] if v["name"] == "values")
    value = parse_strict_json(vector["input"])
    # The library prints 1e+30 as RFC 8785 does; Reseal refuses an integer beyond 2^53 - 1.
    assert rfc8785.dumps(value).hex() == vector["canonicalHex"]
    with pytest.raises(CanonicalizationError) as caught:
        canonical_json(value)
    assert caught.value.path == "/numbers/1"
    expected = bytes.fromhex(vector["canonicalHex"]).decode().replace("1e+30", "1000")
    assert canonical_json(parse_strict_json(vector["input"].replace("1E30", "1E3"))) == expected


class Colour(str, Enum):
    RED = "red"


@pytest.mark.parametrize(
    ("value", "path", "reason"),
    [
        (2**53, "", "beyond"),
        (-(2**53), "", "beyond"),
        (1e30, "", "beyond"),
        (float("nan"), "", "no JSON form"),
        (float("inf"), "", "no JSON form"),
        ({"b": "\ud800", "a": [1, "\udfff"]}, "/a/1", "surrogate"),
        ({"x/y~": {"\ud800": 1}}, "/x~1y~0/\ud800", "surrogate"),
        ((1, 2), "", "tuple"),
        ({"a": Colour.RED}, "/a", "Colour"),
        ({1: "x"}, "", "not a string"),
        ({"a": b"x"}, "/a", "bytes"),
    ],
)
def test_refusals_name_the_first_offending_value(value: Any, path: str, reason: str) -> None:
    with pytest.raises(CanonicalizationError, match=reason) as caught:
        canonical_json(value)
    assert caught.value.path == path


def test_the_library_accepts_what_reseal_refuses() -> None:
    # Each of these would give bytes another party's canonicalizer refuses or reads differently.
    assert rfc8785.dumps(1e30) == b"1e+30"
    assert rfc8785.dumps((1, 2)) == b"[1,2]"
    assert rfc8785.dumps({"a": Colour.RED}) == b'{"a":"red"}'


def test_nesting_is_bounded_at_64() -> None:
    deep: Any = 1
    for _ in range(64):
        deep = [deep]
    assert canonical_json(deep) == "[" * 64 + "1" + "]" * 64
    with pytest.raises(CanonicalizationError, match="nested deeper than 64"):
        canonical_json([deep])


def test_numbers_follow_ecmascript() -> None:
    assert canonical_json([4.50, 2e-3, 1e-27, -0.0, 1e-7, 5e-324, 9007199254740991.0, 333333333.3333333]) == (
        "[4.5,0.002,1e-27,0,1e-7,5e-324,9007199254740991,333333333.3333333]"
    )
    # Every double from 2^53 up is an integer, so 1e21 is refused like 2^53 itself.
    with pytest.raises(CanonicalizationError, match="beyond"):
        canonical_json(1e21)


def test_hash_bytes_refuses_unknown_tags_and_the_dedup_tag_uses_a_newline() -> None:
    with pytest.raises(ValueError, match="unknown hash domain"):
        hash_bytes("reseal/v1/other", b"{}")
    expected = hashlib.sha256(SEAL_DEDUP_TAG.encode() + b"\n" + b'{"a":1}').hexdigest()
    assert seal_dedup_id({"a": 1}) == expected


def test_the_tag_table_of_the_docs_lists_exactly_the_python_tags() -> None:
    text = (REPO / "docs" / "canonical-form.md").read_text("utf-8")
    section = text.split("## Tags and input objects", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\|[^|]*\| `(reseal/v1/[a-z-]+)`", section, re.MULTILINE))
    assert documented == HASH_DOMAINS | {SEAL_DEDUP_TAG}


@pytest.mark.parametrize(
    ("tag", "value", "digest"),
    [
        (
            "reseal/v1/env-key",
            {"v": 1, "key": "ARCH", "value": "arm64"},
            "e4c4d3f93f2b17ff3e279a888392e6588bf7a1c4b137c363c74cd4b55529c044",
        ),
        (
            "reseal/v1/precondition-seal",
            {"v": 1, "baselineKeyHashes": {}},
            "3a032cb1535531bdf205b722a338086b97cfb3973de0e2b80a4fb5ccc27e1a05",
        ),
        (
            "reseal/v1/genesis",
            {"v": 1, "lineageId": "lineage-1"},
            "0306fe01ad87a486d959c0eb0f870d4d91b786eb7e67da7dfc477699d3b9953a",
        ),
        (
            "reseal/v1/value",
            {"v": 1, "value": "arm64"},
            "c580990b7aed47ac96c7ec6029c4136345eae0d0339e523b54bacbac69928ca1",
        ),
        (
            "reseal/v1/payload",
            {"b": [1, 2], "a": "x"},
            "14608af550a46e704557a8a39fb02a15fdaa730b33b45f7001e18b1574916864",
        ),
    ],
)
def test_worked_examples_of_the_docs(tag: str, value: Any, digest: str) -> None:
    assert hash_canonical(tag, value) == digest
