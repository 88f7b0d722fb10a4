"""Every worker by name, for `sluice up` (all of them) and `sluice worker <name>` (one).

Each worker lives in its own package (`workers/<package>/`), independent of the others;
the sync and hook workers share one package because they share the operation loop.
"""

from collections.abc import Callable

from app.runtime.runtime import Runtime
from app.runtime.worker import Worker
from workers.compare import worker as compare
from workers.kube_events import worker as kube_events
from workers.notifications import worker as notifications
from workers.poller import worker as poller
from workers.render import worker as render
from workers.sync import hook_worker, sync_worker
from workers.watcher import worker as watcher

BUILDERS: dict[str, Callable[[Runtime], Worker]] = {
    "watcher": watcher.build,
    "render": render.build,
    "compare": compare.build,
    "sync": sync_worker.build,
    "hooks": hook_worker.build,
    "poller": poller.build,
    "notifications": notifications.build,
    "events": kube_events.build,
}
"""In start order: the watcher first (the live cache warms while the rest start)."""

WORKERS = tuple(BUILDERS)
"""The workers' names, in start order."""


def build(name: str, runtime: Runtime) -> Worker:
    """Build the worker called `name`."""
    builder = BUILDERS.get(name)
    if builder is None:
        raise ValueError(f"unknown worker {name!r}; choose one of {', '.join(WORKERS)}")
    return builder(runtime)
