"""Tenants of a stack, as the client sees them (docs/authorship.md, "Tenancy"; docs/triage.md,
"Tenants"), the same rules as shared/tenancy/ in TypeScript: a tenant's lineage ids begin
``<tenant>/``, and its recalls are put with the EventBridge source ``reseal.tenant.<tenant>``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from .errors import InputIssue, InvalidInputError, TenantMismatchError, TenantRequiredError

__all__ = [
    "TENANT_ID_PATTERN",
    "check_lineage_of_tenant",
    "parse_tenant_id",
    "recall_source_of",
    "write_queue_url",
]

TENANT_ID_PATTERN: Final = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")
"""A tenant id: 1–32 characters of ``a–z 0–9 -``, starting with a letter or digit."""

_EVENT_SOURCE: Final = "reseal"


def parse_tenant_id(tenant_id: object, path: str = "tenant_id") -> str:
    """``tenant_id`` when it is a tenant id.

    :raises InvalidInputError: at ``path`` otherwise"""
    if not isinstance(tenant_id, str) or TENANT_ID_PATTERN.fullmatch(tenant_id) is None:
        raise InvalidInputError(
            "client options",
            [InputIssue(path, "tenant id must be 1–32 characters of [a-z0-9-], starting with a letter or digit")],
        )
    return tenant_id


def recall_source_of(tenant_id: str | None) -> str:
    """The EventBridge ``source`` of a recall: ``reseal.tenant.<tenant_id>``, or ``reseal`` without a tenant."""
    return _EVENT_SOURCE if tenant_id is None else f"{_EVENT_SOURCE}.tenant.{tenant_id}"


def check_lineage_of_tenant(lineage_id: object, tenant_id: str | None) -> None:
    """Refuses a lineage outside the client's tenant, before anything is read, signed or sent.
    No tenant (``None``): one tenant, nothing to refuse. A lineage id that is not a string is left
    to the request's own validation.

    :raises TenantMismatchError: when ``lineage_id`` does not begin ``<tenant_id>/``"""
    if tenant_id is not None and isinstance(lineage_id, str) and not lineage_id.startswith(f"{tenant_id}/"):
        raise TenantMismatchError(lineage_id, tenant_id)


def write_queue_url(
    residual_writes_queue_url: str, tenant_queue_urls: Mapping[str, str] | None, tenant_id: str | None
) -> str:
    """The queue a client's writes go to, as client/write-queue-url.ts: ``residual-writes`` in a
    stack of one tenant, its tenant's queue in a stack with tenants.

    :raises TenantRequiredError: on a stack with tenants, when ``tenant_id`` is none of them"""
    if tenant_queue_urls is None:
        return residual_writes_queue_url
    url = None if tenant_id is None else tenant_queue_urls.get(tenant_id)
    if url is None:
        raise TenantRequiredError(sorted(tenant_queue_urls), tenant_id)
    return url
