"""Framework adapters (docs/frameworks.md): one line makes a framework's memory Reseal-backed.

The binding and the session-item format every session adapter shares are here; each adapter is
its own module, imported by name so that the frameworks stay optional extras:
``reseal.adapters.openai_agents`` (``reseal[openai-agents]``), ``reseal.adapters.langgraph``
(``reseal[langgraph]``) and ``reseal.adapters.strands`` (``reseal[strands]``).
"""

from .binding import (
    ProvenRecord,
    ResealBinding,
    SealRefusedError,
    SealUnprovenError,
    SnapshotProvider,
    StaleWriteRefusedError,
)
from .session_history import SessionHistoryError

__all__ = [
    "ProvenRecord",
    "ResealBinding",
    "SealRefusedError",
    "SealUnprovenError",
    "SessionHistoryError",
    "SnapshotProvider",
    "StaleWriteRefusedError",
]
