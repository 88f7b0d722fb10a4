"""AppProject sync windows (`spec.syncWindows`): may the app sync now, and until when.

A window selects apps by `applications` (app names), `namespaces` (destination
namespace) and `clusters` (destination name or server), all globs; any list matching
selects the app, or every list given when `andOperator` is set. A window is active while
`now` lies in [t, t + duration) for the latest time t its five-field cron `schedule`
fired, read in its `timeZone` (UTC when empty).

Whether a sync may run, over the windows selecting the app, as Argo CD's `CanSync`:

1. no window selects the app: yes;
2. a deny window is active: only a manual sync, and only if every active deny window has
   `manualSync`; an operation already running goes on if every active deny window has
   `syncOverrun` and opened after the operation started;
3. an allow window is active: yes;
4. allow windows select the app but none is active: only a manual sync when every one
   has `manualSync`, or an operation already running that started inside one of them
   when every one has `syncOverrun`;
5. otherwise yes.

A window selecting the app that cannot be read (unknown kind, bad schedule, duration or
time zone) blocks every sync of the app, naming the project, the window and the field:
never treated as open. Everything here takes `now`; nothing reads a clock.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from croniter import CroniterError, croniter

from app.engine.project import glob_match
from app.model.application import Application
from app.model.project import AppProject, SyncWindow
from app.model.timestamps import format_time

KINDS = ("allow", "deny")
MAX_EXTENSIONS = 100
"""Fire times followed to find where back-to-back activations of one window end."""

_DURATION_PART = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_UNIT_SECONDS = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}


def parse_duration(text: str) -> timedelta:
    """A Go duration (`1h`, `30m`, `1h30m`, `1.5h`, `90s`); ValueError saying why not."""
    body = text.strip()
    if not body:
        raise ValueError("is empty")
    if body[0] in "+-":
        raise ValueError("must be a positive duration such as 1h or 30m")
    seconds, at = 0.0, 0
    while at < len(body):
        part = _DURATION_PART.match(body, at)
        if part is None:
            raise ValueError("is not a duration such as 1h, 30m or 1h30m")
        seconds += float(part.group(1)) * _UNIT_SECONDS[part.group(2)]
        at = part.end()
    if seconds <= 0:
        raise ValueError("must be longer than zero")
    return timedelta(seconds=seconds)


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ValueError("is not an IANA time zone such as UTC or Europe/Amsterdam") from None


def _check_schedule(schedule: str) -> None:
    if len(schedule.split()) != 5 or not croniter.is_valid(schedule):
        raise ValueError(
            "is not a five-field cron expression (minute hour day-of-month month day-of-week)"
        )


@dataclass(frozen=True)
class WindowProblem:
    """A window the evaluator cannot read."""

    index: int
    field: str
    message: str


@dataclass(frozen=True)
class WindowState:
    """One window selecting the app, at `now`."""

    index: int
    window: SyncWindow
    active: bool
    opened_at: datetime | None
    """When the current activation began (None when inactive)."""
    changes_at: datetime | None
    """When it next opens (inactive) or closes (active); None if the schedule never fires."""

    def describe(self) -> str:
        w = self.window
        zone = w.time_zone or "UTC"
        return f"window {self.index} ({w.kind} '{w.schedule}' for {w.duration}, {zone})"


@dataclass(frozen=True)
class SyncWindowVerdict:
    """Whether a sync may run now under the project's windows, and why."""

    allowed: bool
    reason: str
    """Why not (or, when allowed, which window lets it through); empty without windows."""
    project: str
    windows: tuple[WindowState, ...] = ()
    """The windows selecting the app (readable ones)."""
    problems: tuple[str, ...] = ()
    """What is wrong with windows selecting the app (each blocks every sync)."""
    changes_at: datetime | None = None
    """The earliest time a window selecting the app opens or closes."""

    @property
    def active(self) -> tuple[WindowState, ...]:
        return tuple(w for w in self.windows if w.active)


def _selected(window: SyncWindow, app: Application) -> bool:
    dest = app.spec.destination

    def any_of(patterns: Sequence[str], values: Sequence[str]) -> bool:
        return any(glob_match(p, v, negation=False) for p in patterns for v in values if v)

    checks = []
    if window.applications:
        checks.append(any_of(window.applications, [app.name]))
    if window.clusters:
        checks.append(any_of(window.clusters, [dest.name, dest.server]))
    if window.namespaces:
        checks.append(any_of(window.namespaces, [dest.namespace]))
    if not checks:
        return False
    return all(checks) if window.and_operator else any(checks)


def selecting(project: AppProject, app: Application) -> list[tuple[int, SyncWindow]]:
    """The project's windows (with their index) that select `app`."""
    return [(i, w) for i, w in enumerate(project.spec.sync_windows) if _selected(w, app)]


def _problem(index: int, window: SyncWindow) -> WindowProblem | None:
    checks = (
        ("kind", window.kind, _check_kind),
        ("schedule", window.schedule, _check_schedule),
        ("duration", window.duration, parse_duration),
        ("timeZone", window.time_zone, _zone),
    )
    for name, value, check in checks:
        try:
            check(value)
        except ValueError as e:
            return WindowProblem(index, name, f"{name} {value!r} {e}")
    return None


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ValueError("is neither allow nor deny")


def _state(index: int, window: SyncWindow, now: datetime) -> WindowState:
    """The window at `now` (the window is readable). ValueError if its schedule never fires."""
    zone = _zone(window.time_zone)
    duration = parse_duration(window.duration)
    local = now.astimezone(zone)
    try:
        latest: datetime = croniter(window.schedule, local).get_prev(datetime)
        following: datetime = croniter(window.schedule, latest).get_next(datetime)
        if following <= local:
            latest = following
        if not latest <= local < latest + duration:
            upcoming: datetime = croniter(window.schedule, local).get_next(datetime)
            return WindowState(index, window, False, None, upcoming.astimezone(now.tzinfo))
        ends = latest + duration
        fires = croniter(window.schedule, latest)
        for _ in range(MAX_EXTENSIONS):
            again: datetime = fires.get_next(datetime)
            if again > ends:
                break
            ends = again + duration
    except CroniterError as e:
        raise ValueError(f"schedule {window.schedule!r} never fires: {e}") from None
    return WindowState(
        index, window, True, latest.astimezone(now.tzinfo), ends.astimezone(now.tzinfo)
    )


def window_state(index: int, window: SyncWindow, now: datetime) -> WindowState | WindowProblem:
    """One window of a project at `now`, on its own (whatever apps it selects): open or
    not and until when, or what makes it unreadable."""
    problem = _problem(index, window)
    if problem is not None:
        return problem
    try:
        return _state(index, window, now)
    except ValueError as e:
        return WindowProblem(index, "schedule", str(e))


def _when(moment: datetime | None) -> str:
    """A time as a verdict's text writes it (UTC, RFC 3339)."""
    if moment is None:
        return "never"
    return format_time(moment)


def evaluate(
    project: AppProject,
    app: Application,
    now: datetime,
    *,
    manual: bool,
    running_since: datetime | None = None,
) -> SyncWindowVerdict:
    """May a sync of `app` run at `now` (`manual`: started by a user, not by auto-sync)?

    `running_since`: the operation is already running, started then (`syncOverrun` applies).
    """
    name = project.metadata.name
    where = f"project {name}"
    selected = selecting(project, app)
    if not selected:
        return SyncWindowVerdict(True, "", name)
    problems: list[str] = []
    states: list[WindowState] = []
    for index, window in selected:
        problem = _problem(index, window)
        if problem is None:
            try:
                states.append(_state(index, window, now))
                continue
            except ValueError as e:
                problem = WindowProblem(index, "schedule", str(e))
        problems.append(
            f"{where}: spec.syncWindows[{index}].{problem.field}: {problem.message}; "
            "fix the window in the AppProject (syncs of the apps it selects are blocked "
            "until then)"
        )
    changes = [s.changes_at for s in states if s.changes_at is not None]
    changes_at = min(changes) if changes else None
    if problems:
        reason = "invalid sync window: " + "; ".join(problems)
        return SyncWindowVerdict(False, reason, name, tuple(states), tuple(problems), changes_at)
    allowed, reason = _can_sync(states, where, manual=manual, running_since=running_since)
    return SyncWindowVerdict(allowed, reason, name, tuple(states), (), changes_at)


def _can_sync(
    states: Sequence[WindowState], where: str, *, manual: bool, running_since: datetime | None
) -> tuple[bool, str]:
    denies = [s for s in states if s.active and s.window.kind == "deny"]
    if denies:
        named = ", ".join(f"{s.describe()} active until {_when(s.changes_at)}" for s in denies)
        if manual and all(s.window.manual_sync for s in denies):
            return True, f"manual sync allowed by {where} {named} (manualSync)"
        if running_since is not None and all(
            s.window.sync_overrun and s.opened_at is not None and s.opened_at > running_since
            for s in denies
        ):
            return True, f"running operation overruns {where} {named} (syncOverrun)"
        return False, f"blocked by sync window: {where} {named}"
    allows = [s for s in states if s.window.kind == "allow"]
    if any(s.active for s in allows):
        opened = ", ".join(s.describe() for s in allows if s.active)
        return True, f"allowed by {where} {opened}"
    if not allows:
        return True, ""
    named = ", ".join(f"{s.describe()} opens at {_when(s.changes_at)}" for s in allows)
    if manual and all(s.window.manual_sync for s in allows):
        return True, f"manual sync allowed by {where} {named} (manualSync)"
    if (
        running_since is not None
        and all(s.window.sync_overrun for s in allows)
        and any(_was_open(s, running_since) for s in allows)
    ):
        return True, f"running operation overruns {where} {named} (syncOverrun)"
    return False, f"blocked by sync window: no allow window is active in {where}: {named}"


def _was_open(state: WindowState, moment: datetime) -> bool:
    """Whether the window was active at `moment` (it is readable: `_state` succeeded)."""
    try:
        return _state(state.index, state.window, moment).active
    except ValueError:
        return False
