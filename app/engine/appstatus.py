"""The Application status a comparison produces, and what a user is told changed.

After every comparison the compare stage writes the part of `status` it owns; this
module decides what that part says (Argo CD: controller/appcontroller.go, the end of
`processAppRefreshQueueItem`):

- `sync`: the comparison's status, what it compared to (the spec's source or sources,
  destination and ignoreDifferences, so a later reader can tell the spec moved on) and
  the revision (`revision` for one source, `revisions` for several);
- `health`: the app's aggregated health; `lastTransitionTime` moves only when the status
  does;
- `resources`: every resource that has a sync status;
- `conditions`: the comparison's own (ComparisonError, warnings), the project's refusals
  of the spec (InvalidSpecError: the app is then Unknown, as in Argo CD), and the
  auto-sync decision's SyncError; a condition already present with the same type and
  message keeps its `lastTransitionTime`;
- `reconciledAt` and `observedAt`: when this comparison ran;
- `sourceType(s)` from the render, and `summary.images`: the container images of the
  live workloads.

A comparison is kept as a `ComparisonSummary` (`summarize`): what the status and the
auto-sync decision need, without the objects.

`spec_problems` is the project check that runs before comparing (is the app's project
there, may it use these repositories and this destination). `transitions` says which
events a new status deserves against the one it replaced: OutOfSync, Synced and health
changes, each once per change.
"""

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.engine import project as proj
from app.engine.compare import ComparisonResult
from app.engine.health import AppHealth
from app.engine.redact import redact_text
from app.model.application import Application
from app.model.project import AppProject
from app.model.resource import KubeObject
from app.model.status import (
    CONDITION_COMPARISON_ERROR,
    CONDITION_INVALID_SPEC,
    CONDITION_ORPHANED_RESOURCE_WARNING,
    CONDITION_SYNC_ERROR,
    AppHealthStatus,
    ApplicationCondition,
    ApplicationStatus,
    ComparedTo,
    ResourceStatus,
    SyncStatus,
)
from app.model.sync import SyncStatusCode

MAX_IMAGES = 100
"""Images listed in `summary.images` at most (a huge app must not bloat its status)."""


@dataclass(frozen=True, slots=True)
class ComparisonSummary:
    """What a status needs from a comparison: a few kilobytes, none of the objects.

    Small enough to keep per app between comparisons (a comparison of unchanged inputs
    is reused, not recomputed), and all that auto-sync and the status read.
    """

    sync_status: SyncStatusCode
    resources: tuple[ResourceStatus, ...]
    """`status.resources`: the resources that have a sync status."""
    health: AppHealth
    conditions: tuple[ApplicationCondition, ...]
    images: tuple[str, ...]
    """Container images of the live workloads, sorted (at most MAX_IMAGES)."""


def summarize(result: ComparisonResult) -> ComparisonSummary:
    """The summary of an engine comparison."""
    return ComparisonSummary(
        result.sync_status,
        tuple(result.resource_statuses()),
        result.health,
        result.conditions,
        _images(result),
    )


@dataclass(frozen=True, slots=True)
class StatusInput:
    """What one comparison found."""

    summary: ComparisonSummary
    revisions: Sequence[str]
    """The resolved commit of each source compared; empty when the render failed."""
    reconciled_at: str
    """RFC 3339 time of this comparison."""
    source_types: Sequence[str] = ()
    """Directory, Kustomize, Helm, Plugin: one per source, as the render reported it."""
    sync_error: str = ""
    """The auto-sync decision's SyncError message; empty: no SyncError condition."""
    invalid_spec: Sequence[str] = ()
    """`spec_problems`, when any: `summary` is then that of `unknown_comparison` of them,
    and its ComparisonError gives way to one InvalidSpecError per problem."""
    orphan_warning: str = ""
    """The OrphanedResourceWarning message (`app.engine.orphans.orphan_warning`); empty:
    no such condition."""


def spec_problems(
    app: Application,
    project: AppProject | None,
    *,
    control_namespace: str,
    cluster: proj.DestinationCluster | None = None,
) -> list[str]:
    """Why the app's project refuses its spec (empty: it does not), in Argo CD's words.

    An app whose namespace may not use the project gets that refusal alone: nothing else
    about it is the project's to judge. Every stage asks this before it fetches, renders,
    compares or applies anything. `cluster` is the cluster the destination resolves to
    (None when it names none: that is reported where the destination is resolved)."""
    if project is None:
        return [f"Application referencing project {app.spec.project} which does not exist"]
    namespace = proj.app_namespace_permitted(
        project, app.name, app.namespace, control_namespace=control_namespace
    )
    if not namespace.allowed:
        return [namespace.message]
    problems = []
    for source in app.spec.all_sources:
        permitted = proj.source_permitted(project, source.repo_url)
        if not permitted.allowed:
            problems.append(permitted.message)
    dest = app.spec.destination
    permitted = proj.destination_permitted(
        project, server=dest.server, name=dest.name, namespace=dest.namespace
    )
    if not permitted.allowed:
        problems.append(permitted.message)
    if cluster is not None:
        scoped = proj.cluster_permitted(project, cluster)
        if not scoped.allowed:
            problems.append(scoped.message)
    return problems


def _conditions(
    given: StatusInput, previous: ApplicationStatus | None
) -> list[ApplicationCondition]:
    if given.invalid_spec:
        wanted = [(CONDITION_INVALID_SPEC, redact_text(m)) for m in given.invalid_spec]
        wanted += [
            (c.type, c.message)
            for c in given.summary.conditions
            if c.type != CONDITION_COMPARISON_ERROR
        ]
    else:
        wanted = [(c.type, c.message) for c in given.summary.conditions]
    if given.sync_error:
        wanted.append((CONDITION_SYNC_ERROR, redact_text(given.sync_error)))
    if given.orphan_warning:
        wanted.append((CONDITION_ORPHANED_RESOURCE_WARNING, given.orphan_warning))
    since = (
        {(c.type, c.message): c.last_transition_time for c in previous.conditions}
        if previous
        else {}
    )
    return [
        ApplicationCondition(kind, message, since.get((kind, message)) or given.reconciled_at)
        for kind, message in wanted
    ]


def _pod_specs(obj: KubeObject) -> Iterable[dict[str, Any]]:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    if obj.get("kind") == "Pod":
        yield spec
    template = spec.get("template")
    if obj.get("kind") == "CronJob":
        job = spec.get("jobTemplate")
        job_spec = job.get("spec") if isinstance(job, dict) else None
        template = job_spec.get("template") if isinstance(job_spec, dict) else None
    pod_spec = template.get("spec") if isinstance(template, dict) else None
    if isinstance(pod_spec, dict):
        yield pod_spec


def _images(result: ComparisonResult) -> tuple[str, ...]:
    images: set[str] = set()
    for resource in result.resources:
        if resource.live is None or resource.hook:
            continue
        for pod_spec in _pod_specs(resource.live):
            for group in ("initContainers", "containers"):
                containers = pod_spec.get(group)
                if not isinstance(containers, list):
                    continue
                for container in containers:
                    image = container.get("image") if isinstance(container, dict) else None
                    if isinstance(image, str) and image:
                        images.add(image)
    return tuple(sorted(images)[:MAX_IMAGES])


def comparison_status(
    app: Application, given: StatusInput, previous: ApplicationStatus | None
) -> ApplicationStatus:
    """The compare-owned part of the app's status after this comparison."""
    summary = given.summary
    spec = app.spec
    multi = spec.is_multi_source
    sync = SyncStatus(
        status=summary.sync_status,
        compared_to=ComparedTo(
            destination=spec.destination,
            source=None if multi else spec.source,
            sources=list(spec.sources) if multi else [],
            ignore_differences=list(spec.ignore_differences),
        ),
        revision="" if multi or not given.revisions else given.revisions[0],
        revisions=list(given.revisions) if multi else [],
    )
    code = summary.health.status
    since = given.reconciled_at
    if previous is not None and previous.health.status is code:
        since = previous.health.last_transition_time or since
    health = AppHealthStatus(code, summary.health.message, since)
    types = list(given.source_types)
    images = list(summary.images)
    return ApplicationStatus(
        resources=list(summary.resources),
        sync=sync,
        health=health,
        conditions=_conditions(given, previous),
        reconciled_at=given.reconciled_at,
        observed_at=given.reconciled_at,
        source_type="" if multi or not types else types[0],
        source_types=types if multi else [],
        summary={"images": images} if images else {},
    )


class Transition(enum.Enum):
    """A change a user is told about; values are the event type names."""

    OUT_OF_SYNC = "out-of-sync"
    SYNCED = "synced"
    SYNC_UNKNOWN = "sync-unknown"
    HEALTH_CHANGED = "health-changed"


@dataclass(frozen=True, slots=True)
class StatusChange:
    transition: Transition
    data: dict[str, Any] = field(default_factory=dict)
    """The event's data: revision, message, and for health the statuses before and after."""


def _revision_text(status: ApplicationStatus) -> str:
    return ", ".join(status.sync.revisions) or status.sync.revision


def transitions(
    previous: ApplicationStatus | None, current: ApplicationStatus
) -> list[StatusChange]:
    """The changes from `previous` (None: the app's first status) to `current`."""
    changes = []
    revision = _revision_text(current)
    before = previous.sync.status if previous is not None else None
    after = current.sync.status
    if after is not before:
        differing = sum(r.status is SyncStatusCode.OUT_OF_SYNC for r in current.resources)
        if after is SyncStatusCode.UNKNOWN:
            causes = "; ".join(c.message for c in current.conditions) or "no comparison result"
            message = f"Application sync status is Unknown: {causes}"[:2000]
            kind = Transition.SYNC_UNKNOWN
        elif after is SyncStatusCode.OUT_OF_SYNC:
            message = (
                f"Application is OutOfSync at revision {revision or '(unknown)'}: "
                f"{differing} of {len(current.resources)} resources differ"
            )
            kind = Transition.OUT_OF_SYNC
        else:
            message = f"Application is Synced at revision {revision or '(unknown)'}"
            kind = Transition.SYNCED
        was = before.value if before is not None else ""
        changes.append(StatusChange(kind, {"revision": revision, "message": message, "from": was}))
    health_before = previous.health.status if previous is not None else None
    health_after = current.health.status
    if health_after is not health_before:
        changes.append(
            StatusChange(
                Transition.HEALTH_CHANGED,
                {
                    "from": health_before.value if health_before is not None else None,
                    "to": health_after.value,
                    "message": current.health.message,
                    "revision": revision,
                },
            )
        )
    return changes
