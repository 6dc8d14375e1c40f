"""Framework adapters (docs/frameworks.md): one line makes a framework's memory Reseal-backed.

The binding is here; each adapter is its own module, imported by name so that the frameworks
stay optional extras: ``reseal.adapters.openai_agents`` (``reseal[openai-agents]``) and
``reseal.adapters.langgraph`` (``reseal[langgraph]``).
"""

from .binding import ProvenRecord, ResealBinding, SealRefusedError, SnapshotProvider, StaleWriteRefusedError

__all__ = ["ProvenRecord", "ResealBinding", "SealRefusedError", "SnapshotProvider", "StaleWriteRefusedError"]
