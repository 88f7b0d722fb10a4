"""Every worker by name, for `sluice up` (all of them) and `sluice worker <name>` (one).

Each worker lives in its own package (`workers/<package>/`), independent of the others;
the sync and hook workers share one package because they share the operation loop. A
worker's package is imported when that worker is built, so a `sluice worker` process
holds only its own worker's modules (the notifications worker's mail client, for one,
stays out of the others).
"""

from collections.abc import Callable

from app.runtime.runtime import Runtime
from app.runtime.worker import Worker

Builder = Callable[[Runtime], Worker]


def _watcher() -> Builder:
    from workers.watcher import worker

    return worker.build


def _render() -> Builder:
    from workers.render import worker

    return worker.build


def _compare() -> Builder:
    from workers.compare import worker

    return worker.build


def _sync() -> Builder:
    from workers.sync import sync_worker

    return sync_worker.build


def _hooks() -> Builder:
    from workers.sync import hook_worker

    return hook_worker.build


def _poller() -> Builder:
    from workers.poller import worker

    return worker.build


def _notifications() -> Builder:
    from workers.notifications import worker

    return worker.build


def _events() -> Builder:
    from workers.kube_events import worker

    return worker.build


BUILDERS: dict[str, Callable[[], Builder]] = {
    "watcher": _watcher,
    "render": _render,
    "compare": _compare,
    "sync": _sync,
    "hooks": _hooks,
    "poller": _poller,
    "notifications": _notifications,
    "events": _events,
}
"""In start order: the watcher first (the live cache warms while the rest start)."""

WORKERS = tuple(BUILDERS)
"""The workers' names, in start order."""


def build(name: str, runtime: Runtime) -> Worker:
    """Build the worker called `name` (its package imported now)."""
    load = BUILDERS.get(name)
    if load is None:
        raise ValueError(f"unknown worker {name!r}; choose one of {', '.join(WORKERS)}")
    return load()(runtime)
