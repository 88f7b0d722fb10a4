"""Tunables of the cluster watcher; every field says what it changes and its default."""

from dataclasses import dataclass

from app.model.resource import GroupKind

NOT_WATCHED: tuple[GroupKind, ...] = (
    GroupKind("", "Event"),
    GroupKind("coordination.k8s.io", "Lease"),
    GroupKind("", "Endpoints"),
    GroupKind("discovery.k8s.io", "EndpointSlice"),
)
"""Kinds never watched on destination clusters: high-churn bookkeeping nobody deploys
(events, leases, endpoints). Every kind of the `events.k8s.io` group is skipped as well.
Applications and AppProjects are watched like any kind (app of apps: a parent tracks the
children it deploys); the control plane follows them separately to reconcile them."""
NOT_WATCHED_GROUPS: tuple[str, ...] = ("events.k8s.io",)


@dataclass(frozen=True, slots=True)
class WatcherSettings:
    lease_ttl: float = 10.0
    """Seconds a leader's lease lasts unless renewed (every third of it); a standby takes
    over at most this long after a leader died, at once after one stopped cleanly."""
    refresh_window: float = 1.0
    """At most one refresh per app per this many seconds: the first change of a quiet app
    is refreshed at once, a burst (a sync's own writes, a rollout) once per window. The
    status a refresh computes is for display and drift; an operation's end refreshes on
    its own, so a longer window costs no sync latency and saves comparisons. `sluice`
    processes take it from `TimingSettings.drift_refresh_window`."""
    operation_refresh_window: float = 10.0
    """While an app's operation runs, changes of its objects (mostly the sync's own writes)
    are refreshed at most once per this many seconds, and not at all once the operation
    has ended: its end refreshes the app on its own, after every change seen while it ran.
    So a sync costs one comparison at its end, while a long one still shows progress."""
    finishing_wait: float = 1.0
    """Once an app's operation has ended, until it is finalized (its end's refresh
    published), changes of its objects wait at most this many seconds for that refresh,
    which covers them: the sync's last writes, seen just after it stored its end, are
    not compared twice. A finalization that takes longer lets them go out."""
    wake_window: float = 0.1
    """At most one sync wake-up per app per this many seconds (a waiting step re-checks the
    cluster when woken: this bounds sync latency)."""
    tree_interval: float = 1.0
    """An app's resource tree is written at most once per this many seconds (the tree is
    for people; health decisions read the live objects)."""
    retry_delay: float = 1.0
    """Seconds before a batch that failed (Redis or NATS unavailable) is tried again."""
    concurrency: int = 32
    """Redis transactions and NATS publishes one batch keeps in flight at once."""
    not_watched: tuple[GroupKind, ...] = NOT_WATCHED
    """Kinds left out of the destination watch (see NOT_WATCHED)."""
    not_watched_groups: tuple[str, ...] = NOT_WATCHED_GROUPS
    """API groups left out entirely."""
