"""The Python client as one reader of the tampering matrix (test/integration/tamper/ and
test/integration/fresh-client.test.ts, docs/guarantees.md, "Tampering by the table writer"),
run by test/helpers/tamper-readers.ts against the attacked table (AWS settings from the
environment), cold or with a seeded checkpoint store; it prints one line:

    python tamper_reader.py <stack pin> <lineage id> records <receipt seq> [<checkpoint store>]

reads the lineage as the framework adapters do (``proven_records``) and one receipt as an auditor
would (``receipt``, then ``verify_receipt`` offline with the pinned log key): ``records
<outcome>; receipt <outcome>``, an outcome being ``VERIFIED_INTACT <n>`` / ``VERIFIED_INTACT seq
<n>``, or the verdict of the error raised (``NotIntegratedError`` for a format-2 receipt of a
record not integrated yet);

    python tamper_reader.py <stack pin> <lineage id> recall <target JSON> <env JSON>

recalls through the stack (EventBridge, the deployed triage function) with the stack's default
freshness policy: ``<end> <verdict or -> <freshness state or "no freshness">``.
"""

from __future__ import annotations

import json
import sys

import boto3

import reseal


def records_and_receipt(stack: reseal.PinnedStack, lineage_id: str, seq: int, store: str | None) -> str:
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
        # The lineage-checkpoint receipt, as the CLI reader asks it: these rows are about the lineage's
        # own log. A head that carries no signed checkpoint has none: then the format-2 receipt.
        try:
            receipt = client().receipt(lineage_id, seq, format_version=1)
        except reseal.InvalidInputError:
            receipt = client().receipt(lineage_id, seq)
        checked = reseal.verify_receipt(receipt, stack.log_key)
        proven = f"{checked.verdict} seq {receipt['record']['header']['monotonicSequenceNumber']}"
    except reseal.LogVerificationError as error:
        proven = f"LogVerificationError {error.verdict}"
    except reseal.NotIntegratedError:
        proven = "NotIntegratedError"
    return f"records {read}; receipt {proven}"


def recall(stack: reseal.PinnedStack, lineage_id: str, target: dict[str, object], env: dict[str, str]) -> str:
    client = reseal.ResealClient(
        stack, dynamodb=boto3.client("dynamodb"), sqs=None, events=boto3.client("events"), checkpoints=None
    )
    got = client.recall(lineage_id, env, target=target, timeout_s=90)
    state = got.freshness.state if got.freshness is not None else "no freshness"
    return f"{got.end} {got.verdict or '-'} {state}"


if __name__ == "__main__":
    pin, lineage, mode, *rest = sys.argv[1:]
    stack = reseal.read_stack_pin(pin)
    if mode == "records":
        print(records_and_receipt(stack, lineage, int(rest[0]), rest[1] if len(rest) > 1 else None))
    elif mode == "recall":
        print(recall(stack, lineage, json.loads(rest[0]), json.loads(rest[1])))
    else:
        raise SystemExit(f"unknown mode {mode!r}: expected records or recall")
