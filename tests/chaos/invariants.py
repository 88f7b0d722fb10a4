"""What must hold after every chaos trial, judged from the cluster and the Application
objects only (never from Sluice's own logs).

Each invariant is a small pure function over what the trial recorded (`Observed`) and
returns its violations as sentences naming the app and what went wrong; an empty list
means it holds. `check` runs them all.
"""

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

KubeObject = Mapping[str, Any]
ObjectKey = tuple[str, str, str]
"""(namespace, kind, name) of a live object."""


@dataclass(frozen=True)
class Observed:
    """What one trial saw, from the local cluster's change log and its objects."""

    revision: str
    """The commit every app must reach."""
    apps: Mapping[str, KubeObject]
    """Application name -> the Application object at the end of the trial."""
    declared: Mapping[str, Mapping[ObjectKey, KubeObject]]
    """Application name -> what Git declares at `revision` (hooks excluded)."""
    live: Mapping[ObjectKey, KubeObject]
    """Every live object of the fleet's namespaces at the end of the trial."""
    hook_creations: Sequence[ObjectKey] = ()
    """One entry per Job ADDED during the trial (hook Jobs are named per generation)."""
    deletions: Sequence[ObjectKey] = ()
    """One entry per object DELETED during the trial."""
    operations: Mapping[str, Sequence[Mapping[str, Any]]] = field(default_factory=dict)
    """Application name -> every `status.operationState` it was written with, in order."""


def _status(app: KubeObject) -> Mapping[str, Any]:
    return app.get("status") or {}


def not_converged(seen: Observed) -> list[str]:
    """Every app is Synced and Healthy at the newest revision, its operation Succeeded."""
    problems = []
    for name, app in sorted(seen.apps.items()):
        status = _status(app)
        sync, health = status.get("sync") or {}, status.get("health") or {}
        operation = status.get("operationState") or {}
        state = (sync.get("status"), sync.get("revision"), health.get("status"))
        if state != ("Synced", seen.revision, "Healthy"):
            problems.append(f"{name}: {state[0]} at {str(state[1])[:7]}, {state[2]}")
        elif operation.get("phase") != "Succeeded":
            problems.append(f"{name}: operation {operation.get('phase')}")
    return problems


def hooks_created_twice(seen: Observed) -> list[str]:
    """No hook Job is created twice for one operation (its name is the generation's)."""
    counts = Counter(seen.hook_creations)
    return [
        f"{namespace}: {kind} {name} created {n} times"
        for (namespace, kind, name), n in sorted(counts.items())
        if n > 1
    ]


def operations_restarted(seen: Observed) -> list[str]:
    """No operation restarts from the beginning: one operation per app for the revision
    (one `startedAt`), and its synced resources never go back to none once listed unless
    a retry began (`retryCount` grew: Argo CD's retry starts the sync over by design)."""
    problems = []
    for name, states in sorted(seen.operations.items()):
        ours = [s for s in states if _revision(s) == seen.revision]
        starts = list(dict.fromkeys(str(s.get("startedAt")) for s in ours))
        if len(starts) > 1:
            problems.append(f"{name}: {len(starts)} operations for {seen.revision[:7]}")
            continue
        listed, retries, retrying = False, 0, False
        for state in ours:
            count = len(((state.get("syncResult") or {}).get("resources")) or [])
            retry = int(state.get("retryCount") or 0)
            if retry > retries:
                listed, retries, retrying = False, retry, True
            if retrying:
                retrying = count > 0
                continue
            if listed and count == 0 and state.get("phase") == "Running":
                said = str(state.get("message") or "")[:80]
                problems.append(f"{name}: the operation's results went back to none ({said})")
                break
            listed = listed or count > 0
    return problems


def _revision(state: Mapping[str, Any]) -> str:
    sync = ((state.get("operation") or {}).get("sync")) or {}
    result = state.get("syncResult") or {}
    return str(sync.get("revision") or result.get("revision") or "")


def pruned_while_declared(seen: Observed) -> list[str]:
    """Nothing Git still declares is deleted."""
    declared = {key for objects in seen.declared.values() for key in objects}
    return [
        f"{namespace}: {kind} {name} deleted while Git declares it"
        for namespace, kind, name in seen.deletions
        if (namespace, kind, name) in declared
    ]


def synced_but_differs(seen: Observed) -> list[str]:
    """No app reports Synced while a live object differs from what Git declares."""
    problems = []
    for name, app in sorted(seen.apps.items()):
        sync = _status(app).get("sync") or {}
        if sync.get("status") != "Synced" or sync.get("revision") != seen.revision:
            continue
        for key, wanted in sorted(seen.declared.get(name, {}).items()):
            live = seen.live.get(key)
            if live is None:
                problems.append(f"{name}: Synced but {key[1]} {key[2]} is missing")
            elif not contains(live, wanted, ignore=("metadata",)):
                problems.append(f"{name}: Synced but {key[1]} {key[2]} differs from Git")
    return problems


def contains(live: Any, wanted: Any, ignore: tuple[str, ...] = ()) -> bool:
    """Whether every field `wanted` sets has that value in `live` (defaults may be added)."""
    if isinstance(wanted, Mapping):
        if not isinstance(live, Mapping):
            return False
        return all(k in ignore or (k in live and contains(live[k], v)) for k, v in wanted.items())
    if isinstance(wanted, list):
        return (
            isinstance(live, list)
            and len(live) == len(wanted)
            and all(contains(a, b) for a, b in zip(live, wanted, strict=True))
        )
    return bool(live == wanted)


def running_when_healthy(seen: Observed) -> list[str]:
    """No operation stays Running once every declared object is live and healthy."""
    if not _fleet_healthy(seen):
        return []
    return [
        f"{name}: operation still Running with every object healthy"
        for name, app in sorted(seen.apps.items())
        if (_status(app).get("operationState") or {}).get("phase") == "Running"
    ]


def _fleet_healthy(seen: Observed) -> bool:
    for objects in seen.declared.values():
        for key in objects:
            live = seen.live.get(key)
            if live is None:
                return False
            if key[1] == "Deployment":
                status = live.get("status") or {}
                if status.get("availableReplicas", 0) < (live.get("spec") or {}).get("replicas", 1):
                    return False
    return True


INVARIANTS: dict[str, Callable[[Observed], list[str]]] = {
    "converged": not_converged,
    "hook_twice": hooks_created_twice,
    "op_restarted": operations_restarted,
    "pruned_declared": pruned_while_declared,
    "synced_differs": synced_but_differs,
    "running_healthy": running_when_healthy,
}
"""Every invariant by the name the chaos report prints it under."""


def check(seen: Observed) -> dict[str, list[str]]:
    """Every invariant's violations (empty lists where it holds)."""
    return {name: invariant(seen) for name, invariant in INVARIANTS.items()}
