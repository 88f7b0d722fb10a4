"""Execution order: phase, then wave, then kind, then name; plus the fix-ups Argo CD makes.

- Phase: PreSync, Sync, PostSync, SyncFail.
- Wave: the integer in `argocd.argoproj.io/sync-wave`; if missing or not an integer,
  `helm.sh/hook-weight`; else 0.
- Kind: Helm's install order (`KIND_ORDER`), matched on Kind only; kinds not listed
  (custom resources) come after all of them, ordered by name among themselves.
- Prune tasks keep their own waves, then the sorted distinct prune waves are mirrored
  (with {-1, 0, 5}: -1 runs in 5 and 5 in -1), so that deletion reverses creation.
  PruneLast moves a prune task to max(0, highest Sync-phase wave) + 1.
- After sorting, a Namespace moves to just before the first task in it, and a CRD before
  the first object of its group/kind, each taking that task's phase and wave.
"""

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from typing import Any

from app.engine.sync.task import SyncTask
from app.model.annotations import HELM_HOOK_WEIGHT, SYNC_WAVE
from app.model.resource import KubeObject, annotations
from app.model.sync import SyncPhase

KIND_ORDER = (
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
)
_KIND_RANK = {kind: i - len(KIND_ORDER) for i, kind in enumerate(KIND_ORDER)}
_INTEGER = re.compile(r"[+-]?[0-9]+")
CRD_GROUP = "apiextensions.k8s.io"
CRD_KIND = "CustomResourceDefinition"


def kind_rank(kind: str) -> int:
    """Negative for the listed kinds, in order; 0 (last) for every other kind."""
    return _KIND_RANK.get(kind, 0)


def _integer(value: Any) -> int | None:
    if isinstance(value, str) and _INTEGER.fullmatch(value):
        return int(value)
    return None


def wave_of(obj: KubeObject) -> int:
    """`sync-wave` if it is an integer, else `helm.sh/hook-weight` if it is one, else 0."""
    ann = annotations(obj)
    wave = _integer(ann.get(SYNC_WAVE))
    if wave is None:
        wave = _integer(ann.get(HELM_HOOK_WEIGHT))
    return wave or 0


def sort_key(task: SyncTask) -> tuple[int, int, int, str, str, str]:
    """phase, wave, kind, name (namespace and group only break exact ties)."""
    return (
        task.sync_phase.order,
        task.wave,
        kind_rank(task.key.kind),
        task.key.name,
        task.key.namespace,
        task.key.group,
    )


def mirror_prune_waves(tasks: Sequence[SyncTask]) -> list[SyncTask]:
    """Swap the waves of prune tasks symmetrically: lowest with highest, and so on."""
    waves = sorted({t.wave for t in tasks if t.is_prune})
    mirrored = dict(zip(waves, reversed(waves), strict=True))
    return [replace(t, wave=mirrored[t.wave]) if t.is_prune else t for t in tasks]


def place_prune_last(tasks: Sequence[SyncTask], prune_last: Collection[int]) -> list[SyncTask]:
    """Move the prune tasks whose ids are in `prune_last` after the last Sync-phase wave."""
    last = max([0] + [t.wave for t in tasks if t.sync_phase is SyncPhase.SYNC]) + 1
    return [replace(t, wave=last) if t.is_prune and t.id in prune_last else t for t in tasks]


def _namespace_of_dependency(task: SyncTask) -> str | None:
    if task.key.group == "" and task.key.kind == "Namespace":
        return task.key.name
    return None


def _namespace_referenced(task: SyncTask) -> str | None:
    return task.key.namespace or None


def _crd_of_dependency(task: SyncTask) -> str | None:
    if task.target is None or (task.key.group, task.key.kind) != (CRD_GROUP, CRD_KIND):
        return None
    spec = task.target.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    names = spec.get("names")
    group = spec.get("group")
    kind = names.get("kind") if isinstance(names, dict) else None
    if isinstance(group, str) and isinstance(kind, str):
        return f"{group}/{kind}"
    return None


def _crd_referenced(task: SyncTask) -> str | None:
    return f"{task.key.group}/{task.key.kind}"


def _bubble_dependencies(
    tasks: list[SyncTask],
    dependency: Callable[[SyncTask], str | None],
    reference: Callable[[SyncTask], str | None],
) -> list[SyncTask]:
    """Move each dependency before the first task referencing it, in that task's step."""
    out = list(tasks)
    first: dict[str, int] = {}
    for i in range(len(out)):
        task = out[i]
        if task.target is None:
            continue
        dep = dependency(task)
        if dep is not None:
            at = first.get(dep)
            if at is not None:
                anchor = out[at]
                del out[i]
                out.insert(at, replace(task, wave=anchor.wave, sync_phase=anchor.sync_phase))
                first = {k: v + 1 if v >= at else v for k, v in first.items()}
            continue
        ref = reference(task)
        if ref is not None:
            first.setdefault(ref, i)
    return out


def order_tasks(tasks: Sequence[SyncTask], prune_last: Collection[int] = ()) -> list[SyncTask]:
    """The execution order of planned tasks, renumbered 0..n-1 in that order.

    `prune_last` holds the ids (before renumbering) of prune tasks that run last.
    """
    arranged = place_prune_last(mirror_prune_waves(tasks), prune_last)
    arranged.sort(key=sort_key)
    arranged = _bubble_dependencies(arranged, _namespace_of_dependency, _namespace_referenced)
    arranged = _bubble_dependencies(arranged, _crd_of_dependency, _crd_referenced)
    return [replace(t, id=i) for i, t in enumerate(arranged)]
