"""What the table writer of docs/sealing.md ("Threat model") can do to a lineage: edit any item,
delete it, put an older one back. No KMS rights, so nothing it writes is signed."""

from __future__ import annotations

import contextlib
import gzip
import os
from typing import Any

import boto3

import reseal
from reseal.item_layout import DEPLOYMENT_HEAD_SK, DEPLOYMENT_LOG_PK, LineageKeys


def record_text(item: dict[str, Any]) -> str:
    """A record item's record text: gzip (binary) when compression paid, else text (docs/sealing.md,
    "Stored items"). An edit is written back as text, which the readers read too."""
    stored = item["record"]
    return gzip.decompress(stored["B"]).decode() if "B" in stored else stored["S"]


class TableWriter:
    """Direct DynamoDB access to the stack's lineage table."""

    def __init__(self, client: reseal.ResealClient) -> None:
        self.table = client.stack.outputs.table_name
        self.dynamodb: Any = boto3.client("dynamodb", endpoint_url=os.environ["AWS_ENDPOINT_URL"])

    def _key(self, lineage: str, sk: str) -> dict[str, Any]:
        return {"pk": {"S": LineageKeys.lineage(lineage)}, "sk": {"S": sk}}

    def edit_record(self, lineage: str, seq: int, old: str, new: str) -> None:
        """Replaces ``old`` by ``new`` in the stored record text of ``seq``."""
        key = self._key(lineage, LineageKeys.record(seq))
        stored = record_text(self.dynamodb.get_item(TableName=self.table, Key=key, ConsistentRead=True)["Item"])
        edited = stored.replace(old, new)
        assert edited != stored, f"{old!r} is not in record {seq}"
        self.dynamodb.update_item(
            TableName=self.table,
            Key=key,
            UpdateExpression="SET #r = :r",
            ExpressionAttributeNames={"#r": "record"},
            ExpressionAttributeValues={":r": {"S": edited}},
        )

    def head(self, lineage: str) -> dict[str, Any]:
        """The lineage's head item as stored (its signed checkpoint inside)."""
        key = self._key(lineage, LineageKeys.HEAD)
        item: dict[str, Any] = self.dynamodb.get_item(TableName=self.table, Key=key, ConsistentRead=True)["Item"]
        return item

    def roll_back(self, lineage: str, head: dict[str, Any], records_from: int, records_to: int) -> None:
        """Deletes records ``records_from``…``records_to - 1`` and puts an older, validly signed head back."""
        for seq in range(records_from, records_to):
            self.dynamodb.delete_item(TableName=self.table, Key=self._key(lineage, LineageKeys.record(seq)))
        self.dynamodb.put_item(TableName=self.table, Item=head)

    def delete_deployment_head(self) -> dict[str, Any]:
        """Deletes the deployment log's head item, ``DEPLOYMENT#log`` / ``HEAD``
        (docs/deployment-log.md, "Stored items"), and returns it as it was stored."""
        key = {"pk": {"S": DEPLOYMENT_LOG_PK}, "sk": {"S": DEPLOYMENT_HEAD_SK}}
        out = self.dynamodb.delete_item(TableName=self.table, Key=key, ReturnValues="ALL_OLD")
        item: dict[str, Any] = out["Attributes"]
        return item

    def put_back_deployment_head(self, item: dict[str, Any]) -> None:
        """Puts a deleted deployment head back as it was, unless a head has been written since (the
        integrator's append, conditional on the head it read, cannot have moved past a missing one)."""
        with contextlib.suppress(self.dynamodb.exceptions.ConditionalCheckFailedException):
            self.dynamodb.put_item(TableName=self.table, Item=item, ConditionExpression="attribute_not_exists(pk)")
