"""Every NATS subject and stream Sluice uses, on one screen.

    stream SLUICE_WORK (work queue, file storage, duplicate window, schedules, per-message TTL)
      sluice.refresh.<app>             trigger -> compare worker: compare at a level
      sluice.render.<app>              compare -> render worker: manifests needed
      sluice.compare.<app>             render -> compare worker: manifests are cached
      sluice.sync.<app>                -> sync worker: advance the operation by one step
      sluice.hook.<app>                sync -> hook worker: run or follow the step's hooks
      sluice.notify.<app>              notifications worker: deliver one notification
      sluice.schedule.<purpose>.<app>  one pending timer per (purpose, app); it fires into
                                       the subject its purpose targets (see schedules.py)
    stream SLUICE_EVENTS (limits retention)
      sluice.events.<app>.<type>       CloudEvents 1.0 JSON; consumer sluice-notifications
                                       (the notifications worker's own, durable)

`<app>` is ONE subject token naming an Application by namespace and name:
`<namespace>~<name>` with every `.` of the name written `_`. Kubernetes names are
lowercase letters, digits, `-` and `.` (namespaces without `.`), so the encoding is
reversible, and since names are validated before encoding, no name can inject a token
separator or a wildcard (`.`, `*`, `>`).
"""

import enum

from app.model.identity import AppRef

PREFIX = "sluice"
WORK_STREAM = "SLUICE_WORK"
EVENTS_STREAM = "SLUICE_EVENTS"


class Work(enum.Enum):
    """Kinds of work message; each has its subject family and one durable consumer."""

    REFRESH = "refresh"
    RENDER = "render"
    COMPARE = "compare"
    SYNC = "sync"
    HOOK = "hook"
    NOTIFY = "notify"


class Purpose(enum.Enum):
    """What a scheduled message is for; one pending schedule per (purpose, app)."""

    RESYNC = "resync"
    """The periodic refresh after every comparison (120 s plus jitter)."""
    SELFHEAL = "selfheal"
    """The refresh after a self-heal backoff."""
    SYNC_WINDOW = "syncwindow"
    """The refresh when a sync window blocking an automated sync opens or closes."""
    RETRY = "retry"
    """The next attempt of a failed sync operation after its retry backoff."""
    WAIT = "wait"
    """The fallback wake-up of a waiting sync step (wave delay, health, deletion)."""


class EventType(enum.Enum):
    """Event types: the last subject token, and `dev.sluice.<value>` as CloudEvents type."""

    OUT_OF_SYNC = "out-of-sync"
    SYNCED = "synced"
    SYNC_UNKNOWN = "sync-unknown"
    HEALTH_CHANGED = "health-changed"
    OPERATION_STARTED = "operation-started"
    OPERATION_SUCCEEDED = "operation-succeeded"
    OPERATION_FAILED = "operation-failed"
    HOOK_PHASE_CHANGED = "hook-phase-changed"
    AUTO_SYNC_SKIPPED = "auto-sync-skipped"
    CREATED = "created"
    DELETION_STARTED = "deletion-started"
    DELETED = "deleted"

    @property
    def cloudevent_type(self) -> str:
        return f"dev.sluice.{self.value}"


_SEPARATOR = "~"


def app_token(app: AppRef) -> str:
    """The app as one subject token: `<namespace>~<name with . as _>`."""
    return f"{app.namespace}{_SEPARATOR}{app.name.replace('.', '_')}"


def app_from_token(token: str) -> AppRef:
    """The app a subject token names; ValueError for anything else."""
    namespace, sep, name = token.partition(_SEPARATOR)
    if not sep or "." in name:
        raise ValueError(f"invalid app token {token!r}: expected <namespace>~<name>")
    return AppRef(namespace, name.replace("_", "."))


def work(kind: Work, app: AppRef) -> str:
    """`sluice.<kind>.<app>`"""
    return f"{PREFIX}.{kind.value}.{app_token(app)}"


def work_filter(kind: Work) -> str:
    """Every app's subject of one kind of work (a consumer's filter)."""
    return f"{PREFIX}.{kind.value}.*"


def schedule(purpose: Purpose, app: AppRef) -> str:
    """`sluice.schedule.<purpose>.<app>`: holds at most one pending timer."""
    return f"{PREFIX}.schedule.{purpose.value}.{app_token(app)}"


def event(app: AppRef, event_type: EventType) -> str:
    """`sluice.events.<app>.<type>`"""
    return f"{PREFIX}.events.{app_token(app)}.{event_type.value}"


def events_filter(app: AppRef | None = None) -> str:
    """Every event, or every event of one app."""
    return f"{PREFIX}.events.{app_token(app) if app else '*'}.*"


NOTIFICATIONS_CONSUMER = "sluice-notifications"
"""The notifications worker's durable consumer of SLUICE_EVENTS (every replica pulls)."""
KUBE_EVENTS_CONSUMER = "sluice-kube-events"
"""The events worker's durable consumer of SLUICE_EVENTS (Kubernetes Events)."""


def consumer(kind: Work) -> str:
    """The durable pull consumer of one kind of work (shared by every replica)."""
    return f"sluice-{kind.value}"


WORK_SUBJECTS = [work_filter(kind) for kind in Work] + [f"{PREFIX}.schedule.*.*"]
EVENT_SUBJECTS = [events_filter()]


def parse_work(subject: str) -> tuple[Work, AppRef]:
    """The kind and app of a work subject; ValueError for anything else."""
    parts = subject.split(".")
    if len(parts) != 3 or parts[0] != PREFIX:
        raise ValueError(f"not a work subject: {subject!r}")
    try:
        kind = Work(parts[1])
    except ValueError:
        raise ValueError(f"not a work subject: {subject!r}") from None
    return kind, app_from_token(parts[2])
