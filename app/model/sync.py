"""Enumerations of sync and operation state, with Argo CD's strings."""

import enum


class SyncStatusCode(enum.Enum):
    """Whether live state matches the target state."""

    SYNCED = "Synced"
    OUT_OF_SYNC = "OutOfSync"
    UNKNOWN = "Unknown"


class OperationPhase(enum.Enum):
    """Phase of an operation, and of a hook (Argo CD reuses the type)."""

    RUNNING = "Running"
    TERMINATING = "Terminating"
    FAILED = "Failed"
    ERROR = "Error"
    SUCCEEDED = "Succeeded"

    @property
    def completed(self) -> bool:
        return self in (OperationPhase.FAILED, OperationPhase.ERROR, OperationPhase.SUCCEEDED)

    @property
    def successful(self) -> bool:
        return self is OperationPhase.SUCCEEDED


class ResultCode(enum.Enum):
    """Outcome of one resource in a sync operation."""

    SYNCED = "Synced"
    SYNC_FAILED = "SyncFailed"
    PRUNED = "Pruned"
    PRUNE_SKIPPED = "PruneSkipped"


class SyncPhase(enum.Enum):
    """The phase a sync task runs in, in execution order (see `order`)."""

    PRE_SYNC = "PreSync"
    SYNC = "Sync"
    POST_SYNC = "PostSync"
    SYNC_FAIL = "SyncFail"

    @property
    def order(self) -> int:
        return _PHASE_ORDER[self]


_PHASE_ORDER = {
    SyncPhase.PRE_SYNC: -1,
    SyncPhase.SYNC: 0,
    SyncPhase.POST_SYNC: 1,
    SyncPhase.SYNC_FAIL: 2,
}


class HookType(enum.Enum):
    """Values of the `argocd.argoproj.io/hook` annotation."""

    PRE_SYNC = "PreSync"
    SYNC = "Sync"
    POST_SYNC = "PostSync"
    SYNC_FAIL = "SyncFail"
    SKIP = "Skip"
    PRE_DELETE = "PreDelete"
    POST_DELETE = "PostDelete"


class HookDeletePolicy(enum.Enum):
    """Values of `argocd.argoproj.io/hook-delete-policy` (and Helm's equivalents)."""

    BEFORE_HOOK_CREATION = "BeforeHookCreation"
    HOOK_SUCCEEDED = "HookSucceeded"
    HOOK_FAILED = "HookFailed"


class Propagation(enum.Enum):
    """What happens to a deleted object's dependents, spelled as Argo CD's
    `PrunePropagationPolicy=` sync option spells it; `policy` is Kubernetes' spelling."""

    FOREGROUND = "foreground"
    """Dependents are deleted first; the owner stays (with deletionTimestamp) until then."""
    BACKGROUND = "background"
    """The owner goes at once; the garbage collector deletes dependents afterwards."""
    ORPHAN = "orphan"
    """Dependents are kept, their ownerReferences to the deleted owner removed."""

    @property
    def policy(self) -> str:
        """`DeleteOptions.propagationPolicy`: Foreground, Background or Orphan."""
        return self.value.capitalize()


class SyncStrategy(enum.Enum):
    """`operation.sync.syncStrategy`: hook (default, hooks run) or apply (no hooks)."""

    HOOK = "hook"
    APPLY = "apply"


class RefreshLevel(enum.IntEnum):
    """Argo CD's comparison levels, ordered: requested levels merge by max."""

    NOTHING = 0
    """Rebuild the resource tree from cached live state."""
    RECENT = 1
    """Compare against the last resolved revision; no Git."""
    LATEST = 2
    """Resolve the target revision; use the manifest cache."""
    FORCE = 3
    """Resolve the target revision and bypass every cache (hard refresh)."""

    @classmethod
    def parse(cls, text: str) -> "RefreshLevel":
        try:
            return cls[text.upper()]
        except KeyError:
            names = ", ".join(m.name.lower() for m in cls)
            raise ValueError(f"unknown refresh level {text!r}; expected one of {names}") from None
