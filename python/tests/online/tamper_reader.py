"""The Python client as one reader of the tampering matrix (test/integration/tamper/, docs/guarantees.md,
"Tampering by the table writer"): run by test/helpers/tamper-readers.ts as

    python tamper_reader.py <stack pin> <lineage id> <receipt seq> [<checkpoint store>]

against the attacked table (AWS settings from the environment), it reads the lineage as the
framework adapters do (``proven_records``) and one receipt as an auditor would (``receipt``, then
``verify_receipt`` offline with the pinned log key), each cold or with the seeded checkpoint
store, and prints one line: ``records <outcome>; receipt <outcome>``, where an outcome is
``VERIFIED_INTACT <n>`` / ``VERIFIED_INTACT seq <n>``, or the verdict of the error it raised.
"""

from __future__ import annotations

import sys

import boto3

import reseal


def main(pin: str, lineage_id: str, seq: int, store: str | None) -> str:
    stack = reseal.read_stack_pin(pin)
    dynamodb = boto3.client("dynamodb")
    checkpoints = reseal.FileCheckpointStore(store) if store else None

    def client() -> reseal.ResealClient:
        # One client per read, each with its own view of the store (a read may keep a checkpoint).
        return reseal.ResealClient(stack, dynamodb=dynamodb, sqs=None, events=None, checkpoints=checkpoints)

    try:
        records, _ = client().proven_records(lineage_id)
        read = f"VERIFIED_INTACT {len(records)}" if records else "none"
    except reseal.LogVerificationError as error:
        read = f"LogVerificationError {error.verdict}"
    try:
        receipt = client().receipt(lineage_id, seq)
        checked = reseal.verify_receipt(receipt, stack.log_key)
        proven = f"{checked.verdict} seq {receipt['record']['header']['monotonicSequenceNumber']}"
    except reseal.LogVerificationError as error:
        proven = f"LogVerificationError {error.verdict}"
    return f"records {read}; receipt {proven}"


if __name__ == "__main__":
    pin, lineage, seq, *rest = sys.argv[1:]
    print(main(pin, lineage, int(seq), rest[0] if rest else None))
