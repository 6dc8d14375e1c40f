"""A sealed record counts as a request's seal only when it binds that request's content, writer
and policy (docs/authorship.md, "Signed writes"): the Python client compares what the TypeScript
core's `differingWriteContent` compares, checked on the authorship vectors' chain."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from conftest import vectors

from reseal.client import _binds_request

AUTHORSHIP = vectors("authorship.json")
PAIRS = [
    (write["request"], step["record"])
    for write, step in zip(AUTHORSHIP["signedWrites"], AUTHORSHIP["chain"], strict=True)
]


@pytest.mark.parametrize(("request_", "record"), PAIRS, ids=[w["name"] for w in AUTHORSHIP["signedWrites"]])
def test_each_chain_record_is_the_seal_of_its_own_signed_write(request_: Any, record: Any) -> None:
    assert _binds_request(record, request_)


def test_a_record_of_another_seq_is_not_this_write_s_seal() -> None:
    (first, _), (_, second) = PAIRS[0], PAIRS[1]
    assert not _binds_request(second, first)


def edited(request: Any, edit: Any) -> Any:
    copy_ = copy.deepcopy(request)
    edit(copy_)
    return copy_


STRANGER = AUTHORSHIP["keys"]["stranger"]


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda r: r["writer"].update(keyId=STRANGER["keyId"]), id="another key id"),
        pytest.param(lambda r: r["writer"].update(publicKey=STRANGER["publicKey"]), id="another public key"),
        pytest.param(lambda r: r["boundary"].update(boundaryAtMs=r["boundary"]["boundaryAtMs"] + 1), id="boundary"),
        pytest.param(lambda r: r["declaredImmutableConstants"].append("zz-extra"), id="declared constants"),
        pytest.param(lambda r: r.pop("policy"), id="no policy where the record set one"),
        pytest.param(
            lambda r: r["policy"]["writers"].append({"keyId": STRANGER["keyId"], "publicKey": STRANGER["publicKey"]}),
            id="another policy",
        ),
        pytest.param(lambda r: r.update(sessionId="another-session"), id="session"),
    ],
)
def test_the_same_residual_id_from_another_writer_policy_or_boundary_is_another_write(edit: Any) -> None:
    request, record = PAIRS[0]
    assert "policy" in request
    assert not _binds_request(record, edited(request, edit))


def test_a_re_signed_write_of_the_same_content_is_the_same_write() -> None:
    request, record = PAIRS[0]
    again = edited(request, lambda r: r["writer"].update(signedAtMs=r["writer"]["signedAtMs"] + 1, signature="AA=="))
    assert _binds_request(record, again)


def test_a_format_1_record_never_counts_as_a_signed_write_s_seal() -> None:
    request, record = PAIRS[1]
    format_1 = {k: v for k, v in record.items() if k not in ("writer", "policy")}
    assert not _binds_request(format_1, request)
