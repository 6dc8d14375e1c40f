"""A LangGraph store whose items are sealed Reseal records (docs/frameworks.md).

No model or graph run: the store is driven through the ``BaseStore`` API that a graph's nodes
use (``graph.compile(store=store)``). Needs a deployed stack (``.reseal/stack.json`` from
``reseal pin``, or ``RESEAL_STACK_FILE``) and AWS settings for it; run
``python examples/langgraph_store.py``.
"""

import uuid

import reseal
from reseal.adapters import ResealBinding
from reseal.adapters.langgraph import ResealStore

client = reseal.connect(writer_key=".reseal/agent-7.pem")
assert client.writer is not None
lineage = reseal.lineage_id_for(f"user-prefs-{uuid.uuid4().hex[:8]}", client.writer.policy())
env = {"DB_HOST": "db-1", "HOSTNAME": "runner-1"}
store = ResealStore(
    ResealBinding(
        client, lineage, session_id="s-1", generation_epoch=1, snapshot=lambda: dict(env), causal_keys=["DB_HOST"]
    )
)

store.put(("users", "u1"), "diet", {"food": "vegetarian"})
store.put(("users", "u1"), "diet", {"food": "vegan"})  # supersedes the first record
store.put(("users", "u1"), "db", {"engine": "postgres 16"})
store.delete(("users", "u1"), "db")  # a tombstone: the record stays in the lineage
env["DB_HOST"] = "db-2"
item = store.get(("users", "u1"), "diet")
assert item is not None
print("diet:", item.value, "proven at seq", item.proof.seq, "of", item.proof.checkpoint.size)
print("drift:", item.drift and item.drift["verdict"], "invalidated:", item.drift and item.drift["invalidatedClaims"])
print("namespaces:", store.list_namespaces())
print("deleted db:", store.get(("users", "u1"), "db"))
