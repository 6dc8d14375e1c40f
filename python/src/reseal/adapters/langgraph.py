"""A LangGraph ``BaseStore`` backed by a Reseal lineage (docs/frameworks.md, "LangGraph"). Needs
the ``langgraph`` extra (``pip install 'reseal[langgraph]'``).

Every ``put`` is one sealed record of the bound lineage, superseding the record it overwrites; a
delete (``put(…, None)``) is a sealed tombstone superseding the deleted item's record: history is
never erased. Reads prove every record in one signed checkpoint consistent with the kept one, so
a tampered or rolled-back store raises :class:`reseal.LogVerificationError`; each item returned is
a :class:`ProvenItem` carrying its proof and, with a snapshot provider bound, its drift verdict.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    validate_op_namespace,
)

# The in-memory store's filter and namespace matching, so that a filter means what it means there.
from langgraph.store.memory import _compare_values, _does_match

from ..errors import InputIssue, InvalidInputError
from .binding import ProvenRecord, ResealBinding

__all__ = ["PAYLOAD_FORMAT", "ProvenItem", "ProvenSearchItem", "ResealStore"]

PAYLOAD_FORMAT = "reseal/langgraph-store/v1"
"""The ``format`` member of every record this adapter seals."""


class _DriftOfProof:
    """``drift`` and ``drifted`` of the record in ``proof``, for both item kinds."""

    __slots__ = ()
    proof: ProvenRecord

    @property
    def drift(self) -> dict[str, Any] | None:
        """Triage's report of the proving record against the snapshot at the read."""
        return self.proof.drift

    @property
    def drifted(self) -> bool:
        """Whether a claim of the proving record rests on a key that drifted."""
        return self.proof.drifted


class ProvenItem(_DriftOfProof, Item):
    """A LangGraph ``Item`` with ``proof``, the record that proves its current value (seq,
    record hash, signed checkpoint), and ``drift``, triage's report of that record against the
    environment at the read (``None`` without a snapshot provider; docs/triage.md)."""

    __slots__ = ("proof",)

    def __init__(self, *, value: dict[str, Any], key: str, namespace: tuple[str, ...], live: _Live) -> None:
        super().__init__(
            value=value, key=key, namespace=namespace, created_at=live.created_at, updated_at=live.updated_at
        )
        self.proof = live.record


class ProvenSearchItem(_DriftOfProof, SearchItem):
    """A search result with ``proof`` and ``drift`` as :class:`ProvenItem` (``score`` is ``None``:
    no semantic index)."""

    __slots__ = ("proof",)

    def __init__(self, live: _Live) -> None:
        super().__init__(live.namespace, live.key, live.value, live.created_at, live.updated_at)
        self.proof = live.record


class _Live:
    """The current value of one (namespace, key): its proving record and first-put time."""

    def __init__(self, namespace: tuple[str, ...], key: str, record: ProvenRecord, created_at: datetime) -> None:
        self.namespace = namespace
        self.key = key
        self.record = record
        self.value: dict[str, Any] = record.payload["value"]
        self.created_at = created_at
        self.updated_at = _sealed_at(record)


class ResealStore(BaseStore):
    """``BaseStore`` over a :class:`ResealBinding`: ``graph.compile(store=ResealStore(binding))``.

    ``batch`` runs its operations in order, each read seeing the writes before it. ``search``
    matches ``filter`` as the in-memory store does and has no semantic index (a ``query`` is
    refused); ``ttl`` and ``index`` of a put are ignored (nothing expires from a sealed log).

    :raises StaleWriteRefusedError: the guard refused a put
    :raises SealUnprovenError: a put was sealed but not proven by the deadline
    :raises LogVerificationError: the store's history does not verify
    :raises InvalidInputError: a value that is not JSON, a semantic query
    """

    supports_ttl = False

    def __init__(self, binding: ResealBinding) -> None:
        self.binding = binding

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Runs each operation in order (docs/frameworks.md, "LangGraph")."""
        ops = list(ops)
        for op in ops:
            validate_op_namespace(op)
        results: list[Result] = []
        state: dict[tuple[tuple[str, ...], str], _Live] | None = None
        for op in ops:
            if isinstance(op, PutOp):
                current = (state if state is not None else self._state()).get((tuple(op.namespace), op.key))
                self._put(op, current)
                state = None  # read again after a write
                results.append(None)
                continue
            if state is None:
                state = self._state()
            if isinstance(op, GetOp):
                live = state.get((tuple(op.namespace), op.key))
                results.append(
                    None
                    if live is None
                    else ProvenItem(value=live.value, key=live.key, namespace=live.namespace, live=live)
                )
            elif isinstance(op, SearchOp):
                results.append(_search(op, state))
            elif isinstance(op, ListNamespacesOp):
                results.append(_list_namespaces(op, state))
            else:
                raise InvalidInputError("store operation", [InputIssue("op", f"unknown operation {type(op).__name__}")])
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` in a worker thread (the client is synchronous)."""
        return await asyncio.to_thread(self.batch, list(ops))

    def _put(self, op: PutOp, current: _Live | None) -> None:
        namespace = list(op.namespace)
        if op.value is None:
            if current is None:
                return  # nothing live to delete: no tombstone for nothing
            payload: dict[str, Any] = {"format": PAYLOAD_FORMAT, "op": "delete", "namespace": namespace, "key": op.key}
        else:
            payload = {"format": PAYLOAD_FORMAT, "op": "put", "namespace": namespace, "key": op.key}
            payload["value"] = _json_value(op.value)
        self.binding.seal(payload, supersedes=None if current is None else current.record, what="put")

    def _state(self) -> dict[tuple[tuple[str, ...], str], _Live]:
        state: dict[tuple[tuple[str, ...], str], _Live] = {}
        for record in self.binding.read():
            payload = record.payload
            ok = (
                isinstance(payload, dict)
                and payload.get("format") == PAYLOAD_FORMAT
                and payload.get("op") in ("put", "delete")
                and isinstance(payload.get("namespace"), list)
                and type(payload.get("key")) is str
                and (payload["op"] == "delete" or isinstance(payload.get("value"), dict))
            )
            if not ok:
                raise InvalidInputError(
                    "store history",
                    [InputIssue(f"seq {record.seq}", f"not a record of this adapter ({PAYLOAD_FORMAT})")],
                )
            where = (tuple(payload["namespace"]), payload["key"])
            if payload["op"] == "delete":
                state.pop(where, None)
            else:
                before = state.get(where)
                created = before.created_at if before is not None else _sealed_at(record)
                state[where] = _Live(where[0], where[1], record, created)
        return state


def _sealed_at(record: ProvenRecord) -> datetime:
    return datetime.fromtimestamp(record.record["header"]["sealedAtMs"] / 1000, tz=timezone.utc)


def _json_value(value: Mapping[str, Any]) -> dict[str, Any]:
    try:
        plain = json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as error:
        raise InvalidInputError("put", [InputIssue("value", f"not JSON: {error}")]) from error
    if not isinstance(plain, dict):
        raise InvalidInputError("put", [InputIssue("value", "expected a mapping")])
    return plain


def _search(op: SearchOp, state: Mapping[tuple[tuple[str, ...], str], _Live]) -> list[SearchItem]:
    if op.query is not None:
        raise InvalidInputError("search", [InputIssue("query", "this store has no semantic index; use filter")])
    prefix = tuple(op.namespace_prefix)
    hits = [
        live
        for (namespace, _), live in state.items()
        if namespace[: len(prefix)] == prefix
        and all(_compare_values(live.value.get(k), v) for k, v in (op.filter or {}).items())
    ]
    hits.sort(key=lambda live: live.updated_at, reverse=True)
    return [ProvenSearchItem(live) for live in hits[op.offset : op.offset + op.limit]]


def _list_namespaces(op: ListNamespacesOp, state: Mapping[tuple[tuple[str, ...], str], _Live]) -> list[tuple[str, ...]]:
    namespaces = {namespace for namespace, _ in state}
    if op.match_conditions:
        namespaces = {ns for ns in namespaces if all(_does_match(c, ns) for c in op.match_conditions)}
    if op.max_depth is not None:
        namespaces = {ns[: op.max_depth] for ns in namespaces}
    return sorted(namespaces)[op.offset : op.offset + op.limit]
