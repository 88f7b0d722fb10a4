"""Hooks: which objects are hooks, in which phases they run, and when they are deleted.

`argocd.argoproj.io/hook` is a CSV of PreSync, Sync, PostSync, SyncFail, Skip (and the
app-deletion hooks PreDelete, PostDelete, which never run during a sync: see
`app.engine.deletion_hooks`). Helm's `helm.sh/hook` counts only when no Argo CD hook
annotation is present: pre-install and pre-upgrade are PreSync, post-install and
post-upgrade PostSync, pre-delete PreDelete, post-delete PostDelete, and `crd-install` is
not a hook at all. An object whose only hook type is Skip is not a hook and is never applied.
A hook with no valid type (a Helm `test` hook, an Argo CD annotation with a typo) is
ignored: dropped from the sync. Typos are reported by `hook_problems` rather than passed
over in silence.

Delete policies are the union of Argo CD's and Helm's annotations; none means
BeforeHookCreation. A hook's phase follows its health by the health engine's rule
(`app.engine.health.hook_status_from_health`); a plain resource's by `resource_phase`.
"""

from app.engine.sync.options import csv_values
from app.model.annotations import HELM_HOOK, HELM_HOOK_DELETE_POLICY, HOOK, HOOK_DELETE_POLICY
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject, annotations
from app.model.sync import HookDeletePolicy, HookType, OperationPhase, SyncPhase

_HELM_TYPES = {
    "pre-install": HookType.PRE_SYNC,
    "pre-upgrade": HookType.PRE_SYNC,
    "post-install": HookType.POST_SYNC,
    "post-upgrade": HookType.POST_SYNC,
    "pre-delete": HookType.PRE_DELETE,
    "post-delete": HookType.POST_DELETE,
}
_HELM_NOT_A_HOOK = "crd-install"
_HELM_POLICIES = {
    "before-hook-creation": HookDeletePolicy.BEFORE_HOOK_CREATION,
    "hook-succeeded": HookDeletePolicy.HOOK_SUCCEEDED,
    "hook-failed": HookDeletePolicy.HOOK_FAILED,
}
_ARGO_TYPES = {t.value: t for t in HookType}
_ARGO_POLICIES = {p.value: p for p in HookDeletePolicy}
_SYNC_PHASES = {
    HookType.PRE_SYNC: SyncPhase.PRE_SYNC,
    HookType.SYNC: SyncPhase.SYNC,
    HookType.POST_SYNC: SyncPhase.POST_SYNC,
    HookType.SYNC_FAIL: SyncPhase.SYNC_FAIL,
}


def _annotation(obj: KubeObject, name: str) -> str | None:
    value = annotations(obj).get(name)
    return value if isinstance(value, str) else None


def hook_types(obj: KubeObject) -> tuple[HookType, ...]:
    """The valid hook types of an object: Argo CD's annotation, else Helm's mapped."""
    argo = _annotation(obj, HOOK)
    found = [_ARGO_TYPES[v] for v in csv_values(argo or "") if v in _ARGO_TYPES]
    if found:
        return tuple(found)
    helm = [
        _HELM_TYPES[v] for v in csv_values(_annotation(obj, HELM_HOOK) or "") if v in _HELM_TYPES
    ]
    return tuple(dict.fromkeys(helm))


def is_skip(obj: KubeObject) -> bool:
    """Only hook type Skip: not a hook, never applied, not part of status or health."""
    return hook_types(obj) == (HookType.SKIP,)


def is_hook(obj: KubeObject) -> bool:
    """Annotated as a hook (Argo CD's annotation, else Helm's), and not Skip only."""
    if _annotation(obj, HOOK) is not None:
        return not is_skip(obj)
    helm = _annotation(obj, HELM_HOOK)
    return helm is not None and helm != _HELM_NOT_A_HOOK


def is_deletion_hook(obj: KubeObject) -> bool:
    """A PreDelete or PostDelete hook: run around the app's deletion, never deleted with it."""
    return any(t in (HookType.PRE_DELETE, HookType.POST_DELETE) for t in hook_types(obj))


def is_ignored(obj: KubeObject) -> bool:
    """A hook without any valid type: dropped from the sync entirely."""
    return is_hook(obj) and not hook_types(obj)


def sync_phases(obj: KubeObject) -> tuple[SyncPhase, ...]:
    """The phases an object runs in: one per hook phase, Sync for a plain resource."""
    if is_skip(obj):
        return ()
    if not is_hook(obj):
        return (SyncPhase.SYNC,)
    phases = {_SYNC_PHASES[t] for t in hook_types(obj) if t in _SYNC_PHASES}
    return tuple(sorted(phases, key=lambda p: p.order))


def delete_policies(obj: KubeObject) -> tuple[HookDeletePolicy, ...]:
    """Argo CD's and Helm's delete policies merged; none given means BeforeHookCreation."""
    found = [
        _ARGO_POLICIES[v]
        for v in csv_values(_annotation(obj, HOOK_DELETE_POLICY) or "")
        if v in _ARGO_POLICIES
    ]
    found += [
        _HELM_POLICIES[v]
        for v in csv_values(_annotation(obj, HELM_HOOK_DELETE_POLICY) or "")
        if v in _HELM_POLICIES
    ]
    return tuple(dict.fromkeys(found)) or (HookDeletePolicy.BEFORE_HOOK_CREATION,)


def hook_problems(obj: KubeObject, where: str) -> list[str]:
    """One sentence per hook annotation value that has no effect, naming the object."""
    problems: list[str] = []
    argo = _annotation(obj, HOOK)
    for value in csv_values(argo or ""):
        if value not in _ARGO_TYPES:
            valid = ", ".join(t.value for t in HookType)
            problems.append(f"{where}: unknown hook type {value!r} in {HOOK}; valid: {valid}")
    if argo is None:
        for value in csv_values(_annotation(obj, HELM_HOOK) or ""):
            if value not in _HELM_TYPES and value != _HELM_NOT_A_HOOK:
                problems.append(
                    f"{where}: Helm hook {value!r} has no Argo CD equivalent; the object is "
                    "left out of the sync (only pre/post-install, pre/post-upgrade and "
                    "pre/post-delete run)"
                )
    if is_ignored(obj) and argo is not None:
        problems.append(f"{where}: {HOOK} names no valid hook type; the object is left out")
    for name, known in (
        (HOOK_DELETE_POLICY, _ARGO_POLICIES),
        (HELM_HOOK_DELETE_POLICY, _HELM_POLICIES),
    ):
        for value in csv_values(_annotation(obj, name) or ""):
            if value not in known:
                problems.append(
                    f"{where}: unknown delete policy {value!r} in {name}; valid: {', '.join(known)}"
                )
    return problems


def resource_phase(health: HealthStatus | None) -> tuple[OperationPhase | None, str]:
    """A plain resource's phase once applied: Healthy or no health check Succeeded,
    Degraded Failed; anything else (None) keeps it Running."""
    if health is None:
        return OperationPhase.SUCCEEDED, ""
    if health.status is HealthStatusCode.HEALTHY:
        return OperationPhase.SUCCEEDED, health.message
    if health.status is HealthStatusCode.DEGRADED:
        return OperationPhase.FAILED, health.message
    return None, ""
