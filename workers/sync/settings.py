"""Deadlines and retry delays of the sync and hook workers."""

from dataclasses import dataclass, field

from workers.sync.executor import ExecutorSettings


@dataclass(frozen=True, slots=True)
class SyncWorkerSettings:
    """How the sync and hook workers bound their calls and pace their retries."""

    observe_timeout: float = 10.0
    """Seconds to read every object a step looks at (the reads run concurrently)."""
    discovery_timeout: float = 10.0
    """Seconds to load the destination cluster's discovery when planning."""
    status_timeout: float = 10.0
    """Seconds to write `operationState` and `history` onto the Application resource."""
    status_retry: float = 2.0
    """Seconds before the last `operationState` write of an operation, refused or failed,
    is tried again (the operation is finalized only once it landed)."""
    cold_retry: float = 1.0
    """Seconds before a step that found the live cache COLD (or the cluster unavailable)
    is tried again; nothing is planned or pruned from a cache that is still warming up."""
    executor: ExecutorSettings = field(default_factory=ExecutorSettings)
    """Deadlines of the actions a step performs."""
