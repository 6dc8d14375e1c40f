"""A binding that keeps records in memory, for the framework adapters' offline tests: the
binding's two calls over a list, with the sealed header's ``supersedes`` as the sealer writes it."""

from __future__ import annotations

from typing import Any

from reseal.adapters import ProvenRecord
from reseal.log import Checkpoint


class MemoryBinding:
    """``seal`` appends a record, ``read`` returns every record."""

    lineage_id = "memory"

    def __init__(self) -> None:
        self.records: list[ProvenRecord] = []

    def seal(self, payload: Any, *, supersedes: ProvenRecord | None = None, what: str = "") -> None:
        seq = len(self.records)
        header = {
            "monotonicSequenceNumber": seq,
            "sealedAtMs": 1_700_000_000_000 + seq,
            "supersedes": None if supersedes is None else {"seq": supersedes.seq, "recordHash": supersedes.record_hash},
        }
        record = {"header": header, "payload": payload, "recordHash": f"{seq:064x}"}
        checkpoint = Checkpoint(origin="o", size=seq + 1, root_hash=b"")
        self.records.append(ProvenRecord(seq, record["recordHash"], payload, record, checkpoint, None))

    def read(self) -> list[ProvenRecord]:
        return list(self.records)
