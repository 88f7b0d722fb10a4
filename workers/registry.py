"""Every worker by name, for `sluice up` (all of them) and `sluice worker <name>` (one).

Each worker lives in its own package (`workers/<package>/`), independent of the others;
the sync and hook workers share one package because they share the operation loop. A
worker's module is imported when that worker is built, so a `sluice worker` process
holds only its own worker's modules (the notifications worker's mail client, for one,
stays out of the others).
"""

import importlib
from collections.abc import Callable

from app.runtime.runtime import Runtime
from app.runtime.worker import Worker

Builder = Callable[[Runtime], Worker]

MODULES: dict[str, str] = {
    "watcher": "workers.watcher.worker",
    "render": "workers.render.worker",
    "compare": "workers.compare.worker",
    "sync": "workers.sync.sync_worker",
    "hooks": "workers.sync.hook_worker",
    "poller": "workers.poller.worker",
    "notifications": "workers.notifications.worker",
    "events": "workers.kube_events.worker",
}
"""Each worker's module (it defines `build`), in start order: the watcher first (the
live cache warms while the rest start)."""

WORKERS = tuple(MODULES)
"""The workers' names, in start order."""


def builder(name: str) -> Builder:
    """The `build` of the worker called `name`, its module imported now."""
    module = MODULES.get(name)
    if module is None:
        raise ValueError(f"unknown worker {name!r}; choose one of {', '.join(WORKERS)}")
    build: Builder = importlib.import_module(module).build
    return build


def build(name: str, runtime: Runtime) -> Worker:
    """Build the worker called `name`."""
    return builder(name)(runtime)
