"""`sluice app sync|rollback|wait`: start an operation or wait for a state, and follow it live.

A sync subscribes to the app's event stream first (so nothing that happens after the
request is missed), then asks for the sync, then prints as things happen: each event
(operation started, hook phases, finished) and each resource's result as it changes
(phase, wave, kind/name, result, hook phase, message), read from the app's operation
state whenever an event arrives (and at least every second). It exits 0 when the
operation Succeeded, 1 when it Failed or Errored, 3 on `--timeout`.
"""

import argparse
import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

from app.cli.client import NO, OK, READY, TIMEOUT, Api, CliError, Event, app_path, app_query
from app.cli.output import say
from app.cli.running import runner

POLL = 1.0
"""Seconds between status reads when no event arrives."""
WAIT_POLL = 0.5
DONE = ("Succeeded", "Failed", "Error")
_EVENT_TYPES = (
    "operation-started",
    "operation-succeeded",
    "operation-failed",
    "hook-phase-changed",
    "synced",
    "out-of-sync",
    "health-changed",
)


class Progress:
    """Prints what changed in an operation since the last look, one line per change."""

    def __init__(self) -> None:
        self._results: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._phase: tuple[str, str] = ("", "")

    def event(self, event: Event) -> None:
        if event.type not in _EVENT_TYPES:
            return
        data = event.data
        if event.type == "hook-phase-changed":
            hook = f"{data.get('kind', '')}/{data.get('name', '')}"
            say(
                f"hook     {data.get('hookType', ''):<8} {hook:<40} {data.get('phase', ''):<12} "
                f"{data.get('message', '')}".rstrip()
            )
            return
        detail = data.get("message") or data.get("reason") or ""
        say(f"event    {event.type:<20} {detail}".rstrip())

    def update(self, app: dict[str, Any]) -> dict[str, Any] | None:
        status = app.get("status") or {}
        operation = status.get("operationState")
        if not operation:
            return None
        waves = {
            (r.get("group", ""), r["kind"], r.get("namespace", ""), r["name"]): r.get("syncWave", 0)
            for r in status.get("resources") or []
        }
        phase = (operation.get("phase", ""), operation.get("message", ""))
        if phase != self._phase:
            self._phase = phase
            say(f"phase    {phase[0]:<20} {phase[1]}".rstrip())
        for result in (operation.get("syncResult") or {}).get("resources") or []:
            key = (
                result.get("group", ""),
                result["kind"],
                result.get("namespace", ""),
                result["name"],
            )
            shown = (
                result.get("syncPhase", "Sync"),
                str(waves.get(key, 0)),
                result.get("status", ""),
                result.get("hookPhase", ""),
                result.get("message", ""),
            )
            if self._results.get(key) != shown:
                self._results[key] = shown
                sync_phase, wave, outcome, hook_phase, message = shown
                kind = f"{result['kind']}/{result['name']}"
                state = " ".join(p for p in (outcome, hook_phase) if p)
                say(f"{sync_phase:<8} wave {wave:>3}  {kind:<40} {state:<20} {message}".rstrip())
        return dict(operation)


async def follow_operation(
    api: Api, args: argparse.Namespace, suffix: str, body: dict[str, Any]
) -> int:
    """Start the operation at `suffix` and print its progress until it ends."""
    queue: asyncio.Queue[Event] = asyncio.Queue()

    async def pump() -> None:
        async for event in api.events(app=args.name, namespace=args.app_namespace):
            await queue.put(event)

    task = asyncio.create_task(pump(), name="cli-follow-events")
    try:
        first = await asyncio.wait_for(queue.get(), 30.0)
        if first is not READY:
            raise CliError("the event stream did not start; retry")
        started = await api.call("POST", app_path(args, suffix), query=app_query(args), body=body)
        say(f"operation {started['operation']}: {started['message']}")
        return await _until_done(api, args, queue, task)
    except TimeoutError:
        raise CliError("the event stream did not start within 30 s; retry") from None
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, CliError):
            await task


async def _until_done(
    api: Api, args: argparse.Namespace, queue: "asyncio.Queue[Event]", task: "asyncio.Task[None]"
) -> int:
    progress = Progress()
    deadline = time.monotonic() + args.timeout if args.timeout > 0 else float("inf")
    while True:
        operation = progress.update(await api.call("GET", app_path(args), query=app_query(args)))
        if operation is not None and operation.get("phase") in DONE:
            phase = operation["phase"]
            say(f"{phase}: {operation.get('message', '')}".rstrip(": "))
            return OK if phase == "Succeeded" else NO
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            say(
                f"timed out after {args.timeout:g} s; the operation goes on "
                f"(sluice app get {args.name})"
            )
            return TIMEOUT
        if task.done() and queue.empty():
            await asyncio.sleep(min(POLL, remaining))
            continue
        with contextlib.suppress(TimeoutError):
            progress.event(await asyncio.wait_for(queue.get(), min(POLL, remaining)))
            while not queue.empty():
                progress.event(queue.get_nowait())


def _resource(text: str) -> dict[str, str]:
    """`GROUP:KIND:NAME` or `GROUP:KIND:NAMESPACE/NAME` (argocd's --resource)."""
    parts = text.split(":")
    if len(parts) != 3 or not parts[1] or not parts[2]:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected GROUP:KIND:NAME or GROUP:KIND:NAMESPACE/NAME "
            "(an empty group for core kinds)"
        )
    namespace, _, name = parts[2].rpartition("/")
    return {"group": parts[0], "kind": parts[1], "namespace": namespace, "name": name}


async def sync_app(args: argparse.Namespace) -> int:
    body: dict[str, Any] = {
        "revision": args.revision,
        "prune": args.prune,
        "dryRun": args.dry_run,
        "resources": args.resource,
        "syncOptions": args.sync_option,
        "strategy": args.strategy,
        "force": args.force,
    }
    if args.retry_limit:
        body["retry"] = {
            "limit": args.retry_limit,
            "backoff": {
                "duration": args.retry_backoff_duration,
                "factor": args.retry_backoff_factor,
                "maxDuration": args.retry_backoff_max_duration,
            },
        }
    async with Api.from_args(args) as api:
        if args.async_:
            started = await api.call(
                "POST", app_path(args, "/sync"), query=app_query(args), body=body
            )
            say(f"operation {started['operation']}: {started['message']}")
            return OK
        return await follow_operation(api, args, "/sync", body)


async def rollback_app(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        history_id = args.id
        if history_id is None:
            items = (await api.call("GET", app_path(args, "/history"), query=app_query(args)))[
                "items"
            ]
            if len(items) < 2:
                raise CliError(f"application {args.name} has no earlier deployment to roll back to")
            history_id = items[-2].get("id", 0)
        body = {"id": history_id, "prune": args.prune, "dryRun": args.dry_run}
        if args.async_:
            started = await api.call(
                "POST", app_path(args, "/rollback"), query=app_query(args), body=body
            )
            say(f"operation {started['operation']}: {started['message']}")
            return OK
        return await follow_operation(api, args, "/rollback", body)


def _unmet(app: dict[str, Any], args: argparse.Namespace) -> list[str]:
    status = app.get("status") or {}
    sync = (status.get("sync") or {}).get("status", "Unknown")
    health = (status.get("health") or {}).get("status", "Unknown")
    phase = (status.get("operationState") or {}).get("phase", "")
    unmet = []
    if args.sync and sync != "Synced":
        unmet.append(f"sync is {sync}")
    if args.health and health != "Healthy":
        unmet.append(f"health is {health}")
    if args.operation and phase in ("Running", "Terminating"):
        unmet.append(f"an operation is {phase}")
    return unmet


async def wait_app(args: argparse.Namespace) -> int:
    if not (args.sync or args.health or args.operation):
        args.sync = args.health = args.operation = True
    deadline = time.monotonic() + args.timeout if args.timeout > 0 else float("inf")
    async with Api.from_args(args) as api:
        while True:
            app = await api.call("GET", app_path(args), query=app_query(args))
            unmet = _unmet(app, args)
            health = ((app.get("status") or {}).get("health") or {}).get("status")
            if args.health and health == "Degraded":
                say(f"application {args.name} is Degraded")
                return NO
            if not unmet:
                say(f"application {args.name}: condition met")
                return OK
            if time.monotonic() >= deadline:
                say(f"timed out after {args.timeout:g} s: {', '.join(unmet)}")
                return TIMEOUT
            await asyncio.sleep(min(WAIT_POLL, max(0.0, deadline - time.monotonic())))


def register(named: Callable[[str, str], Any]) -> None:
    """Add `sync`, `rollback` and `wait`; `named(name, help)` creates a subcommand."""
    sync = named("sync", "sync an application and follow its progress")
    sync.add_argument("--revision", default="", help="revision to sync (default the target)")
    sync.add_argument("--prune", action="store_true", help="delete resources no longer in Git")
    sync.add_argument("--dry-run", action="store_true", help="validate only")
    sync.add_argument(
        "--resource",
        action="append",
        type=_resource,
        default=[],
        help="GROUP:KIND:[NAMESPACE/]NAME to sync only this (repeatable)",
    )
    sync.add_argument("--sync-option", action="append", default=[], help="e.g. Replace=true")
    sync.add_argument("--strategy", choices=("hook", "apply"), default="hook")
    sync.add_argument("--force", action="store_true", help="delete and re-create on failure")
    sync.add_argument("--retry-limit", type=int, default=0)
    sync.add_argument("--retry-backoff-duration", default="5s")
    sync.add_argument("--retry-backoff-factor", type=int, default=2)
    sync.add_argument("--retry-backoff-max-duration", default="3m")
    sync.add_argument("--timeout", type=float, default=300.0, help="seconds (0: no limit)")
    sync.add_argument("--async", dest="async_", action="store_true", help="do not follow")
    sync.set_defaults(run=runner(sync_app))

    rollback = named("rollback", "roll back to a history entry (default: the previous one)")
    rollback.add_argument("id", nargs="?", type=int, default=None, help="history id")
    rollback.add_argument("--prune", action="store_true")
    rollback.add_argument("--dry-run", action="store_true")
    rollback.add_argument("--timeout", type=float, default=300.0, help="seconds (0: no limit)")
    rollback.add_argument("--async", dest="async_", action="store_true", help="do not follow")
    rollback.set_defaults(run=runner(rollback_app))

    wait = named("wait", "wait until Synced/Healthy/no operation (exit 1 Degraded, 3 timeout)")
    wait.add_argument("--sync", action="store_true", help="wait for Synced")
    wait.add_argument("--health", action="store_true", help="wait for Healthy")
    wait.add_argument("--operation", action="store_true", help="wait for no running operation")
    wait.add_argument("--timeout", type=float, default=300.0, help="seconds (0: no limit)")
    wait.set_defaults(run=runner(wait_app))
