"""Deletion hooks: PreDelete and PostDelete hooks around an Application's deletion.

An app whose rendered manifests hold PreDelete (PostDelete) hooks carries Argo CD's
finalizers `pre-delete-finalizer.argocd.argoproj.io` and `…/cleanup`
(`post-delete-finalizer.argocd.argoproj.io` and `…/cleanup`), so deleting it waits for
them. The comparison keeps them in line with the manifests (`hook_finalizers`), never
while the app is being deleted. Deleting the app then goes through stages, one at a
time, each ending when its finalizer comes off (`deletion_stage`):

1. PreDelete: the manifests' PreDelete hooks are created (placed and tracked like every
   target) and waited for; a hook of a kind the settings exclude (`resource.exclusions`,
   `resource.inclusions`) is not created, as a sync never applies one, and the step says
   so. A failed one blocks the deletion, named with its message,
   and is looked at again until it succeeds (delete it and it is created again); when
   every one succeeded, the pre-delete finalizer comes off.
2. PreDelete cleanup: the live PreDelete hooks whose delete policy matches the outcome
   are deleted, and every hook being deleted is waited for; then `…/cleanup` comes off.
3. Resources: cascade deletion (`app.engine.cascade`), which never deletes a PreDelete or
   PostDelete hook, so none goes before it ran.
4. PostDelete: likewise, once the resources are gone; the finalizer comes off when none
   is still running. A failed PostDelete hook does not block (the resources are gone
   already), as in Argo CD.
5. PostDelete cleanup: as 2, against the worst outcome of the PostDelete hooks:
   HookSucceeded hooks go when every one succeeded, HookFailed hooks when one failed.

A hook with `generateName` and no name is named `<generateName><predelete|postdelete>`,
so each step finds the one it created. Every step looks only at what is live now and
can be repeated after any change.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from app.engine.cascade import is_cascade_finalizer
from app.engine.health import HealthCustomizations, hook_status
from app.engine.sync.hooks import delete_policies, hook_types
from app.model.annotations import HOOK_CLEANUP_STAGE, POST_DELETE_FINALIZER, PRE_DELETE_FINALIZER
from app.model.resource import KubeObject, ResourceKey, metadata
from app.model.sync import HookDeletePolicy, HookType, OperationPhase

DELETION_HOOK_TYPES = (HookType.PRE_DELETE, HookType.POST_DELETE)
FINALIZERS = {
    HookType.PRE_DELETE: PRE_DELETE_FINALIZER,
    HookType.POST_DELETE: POST_DELETE_FINALIZER,
}


def cleanup_finalizer(finalizer: str) -> str:
    return f"{finalizer}/{HOOK_CLEANUP_STAGE}"


OWN_FINALIZERS = frozenset(
    name for finalizer in FINALIZERS.values() for name in (finalizer, cleanup_finalizer(finalizer))
)


class DeletionStage(Enum):
    """What deleting an app waits for now; the value is how logs and conditions say it."""

    PRE_DELETE = "PreDelete hooks"
    PRE_DELETE_CLEANUP = "PreDelete hook cleanup"
    RESOURCES = "resources"
    POST_DELETE = "PostDelete hooks"
    POST_DELETE_CLEANUP = "PostDelete hook cleanup"


_HOOK_TYPE = {
    DeletionStage.PRE_DELETE: HookType.PRE_DELETE,
    DeletionStage.PRE_DELETE_CLEANUP: HookType.PRE_DELETE,
    DeletionStage.POST_DELETE: HookType.POST_DELETE,
    DeletionStage.POST_DELETE_CLEANUP: HookType.POST_DELETE,
}
_CLEANUP = (DeletionStage.PRE_DELETE_CLEANUP, DeletionStage.POST_DELETE_CLEANUP)
RUNNING_STAGES = (DeletionStage.PRE_DELETE, DeletionStage.POST_DELETE)
"""The stages that run hooks, and so need the app's manifests."""


def deletion_hooks_of(manifests: Iterable[KubeObject]) -> frozenset[HookType]:
    """The deletion hook types (PreDelete, PostDelete) that `manifests` declare."""
    return frozenset(t for obj in manifests for t in hook_types(obj) if t in DELETION_HOOK_TYPES)


def hook_finalizers(
    finalizers: Sequence[str], hooks: frozenset[HookType] | None, *, deleting: bool = False
) -> list[str] | None:
    """The finalizers an app carries when its manifests declare `hooks`: both finalizers
    of each type declared, none of a type not declared; other finalizers untouched. None
    when `finalizers` already are that, when the manifests were not read (`hooks` None),
    or while the app is being deleted (`deleting`: its stages own the finalizers then)."""
    if hooks is None or deleting:
        return None
    wanted = [
        name
        for hook_type, finalizer in FINALIZERS.items()
        if hook_type in hooks
        for name in (finalizer, cleanup_finalizer(finalizer))
    ]
    kept = [f for f in finalizers if f not in OWN_FINALIZERS or f in wanted]
    result = kept + [f for f in wanted if f not in kept]
    return None if result == list(finalizers) else result


def deletion_stage(finalizers: Sequence[str]) -> DeletionStage | None:
    """The stage an app being deleted is in, from the finalizers it still carries; None
    when none of Sluice's is left."""
    if PRE_DELETE_FINALIZER in finalizers:
        return DeletionStage.PRE_DELETE
    if cleanup_finalizer(PRE_DELETE_FINALIZER) in finalizers:
        return DeletionStage.PRE_DELETE_CLEANUP
    if any(is_cascade_finalizer(f) for f in finalizers):
        return DeletionStage.RESOURCES
    if POST_DELETE_FINALIZER in finalizers:
        return DeletionStage.POST_DELETE
    if cleanup_finalizer(POST_DELETE_FINALIZER) in finalizers:
        return DeletionStage.POST_DELETE_CLEANUP
    return None


@dataclass(frozen=True, slots=True)
class HookStep:
    """What to do next in a hook stage of an app's deletion."""

    stage: DeletionStage
    create: tuple[KubeObject, ...] = ()
    """Hooks to create now."""
    delete: tuple[KubeObject, ...] = ()
    """Hooks to delete now (cleanup)."""
    waiting: tuple[str, ...] = ()
    """Why the stage is not over, one sentence per hook still running or going."""
    failed: tuple[str, ...] = ()
    """PreDelete hooks that failed, with their message: the deletion is blocked."""
    excluded: tuple[str, ...] = ()
    """Hooks of this stage not created because the settings exclude their kind."""
    finalizers: tuple[str, ...] | None = None
    """The app's finalizers without this stage's once it is over; None until then."""

    @property
    def done(self) -> bool:
        return self.finalizers is not None

    @property
    def problem(self) -> str:
        """The DeletionError text while a hook failed; empty otherwise."""
        if not self.failed:
            return ""
        return (
            "; ".join(self.failed) + ": the Application is not deleted until its PreDelete "
            f"hooks succeed; fix the hook in Git and delete the failed one (it is created "
            f"again), or remove the finalizer {PRE_DELETE_FINALIZER} to skip them"
        )


def _named(obj: KubeObject, hook_type: HookType) -> KubeObject:
    meta = metadata(obj)
    if meta.get("name") or not meta.get("generateName"):
        return obj
    name = f"{meta['generateName']}{hook_type.value.lower()}"
    return {**obj, "metadata": {**meta, "name": name}}


def _without(finalizers: Sequence[str], finalizer: str) -> tuple[str, ...]:
    return tuple(f for f in finalizers if f != finalizer)


def hook_step(
    stage: DeletionStage,
    finalizers: Sequence[str],
    targets: Iterable[KubeObject],
    live: Iterable[KubeObject],
    health: HealthCustomizations | None = None,
    *,
    excluded: Iterable[KubeObject] = (),
) -> HookStep:
    """The next step of hook `stage` (not RESOURCES) for an app carrying `finalizers`.

    `targets` are the app's manifests, placed and tracked (only the running stages read
    them); `live` are the objects the app tracks; `health` the Lua checks in force;
    `excluded` the manifests the settings exclude (`app.engine.sync.targets.split_targets`),
    whose hooks are reported, never created.
    """
    hook_type = _HOOK_TYPE[stage]
    mine = [obj for obj in live if hook_type in hook_types(obj)]
    if stage in _CLEANUP:
        return _cleanup(stage, finalizers, hook_type, mine, health)
    live_by_key = {ResourceKey.of(obj): obj for obj in mine}
    hooks = {
        ResourceKey.of(named): named
        for named in (_named(obj, hook_type) for obj in targets if hook_type in hook_types(obj))
    }
    create: list[KubeObject] = []
    waiting: list[str] = []
    failed: list[str] = []
    for key, target in sorted(hooks.items()):
        found = live_by_key.get(key)
        if found is None:
            create.append(target)
            continue
        status = hook_status(found, customizations=health)
        if status.phase is OperationPhase.RUNNING:
            waiting.append(f"{hook_type.value} hook {key} is running: {status.message}".strip())
        elif status.phase is OperationPhase.FAILED and hook_type is HookType.PRE_DELETE:
            failed.append(f"PreDelete hook {key} failed: {status.message}")
    left_out = sorted(
        ResourceKey.of(_named(obj, hook_type)) for obj in excluded if hook_type in hook_types(obj)
    )
    over = not create and not waiting and not failed
    return HookStep(
        stage,
        create=tuple(create),
        waiting=tuple(waiting),
        failed=tuple(failed),
        excluded=tuple(
            f"{hook_type.value} hook {key} is not created: its kind is excluded in the "
            "settings (resource.exclusions/resource.inclusions)"
            for key in left_out
        ),
        finalizers=_without(finalizers, FINALIZERS[hook_type]) if over else None,
    )


def _cleanup(
    stage: DeletionStage,
    finalizers: Sequence[str],
    hook_type: HookType,
    hooks: list[KubeObject],
    health: HealthCustomizations | None,
) -> HookStep:
    going = [obj for obj in hooks if metadata(obj).get("deletionTimestamp")]
    waiting = [f"{hook_type.value} hook {ResourceKey.of(obj)} is being deleted" for obj in going]
    staying = [obj for obj in hooks if not metadata(obj).get("deletionTimestamp")]
    phases = {hook_status(obj, customizations=health).phase for obj in staying}
    policy = None
    if OperationPhase.FAILED in phases:
        policy = HookDeletePolicy.HOOK_FAILED
    elif phases <= {OperationPhase.SUCCEEDED}:
        policy = HookDeletePolicy.HOOK_SUCCEEDED
    delete = [
        obj
        for obj in sorted(staying, key=ResourceKey.of)
        if policy is not None and policy in delete_policies(obj)
    ]
    over = not delete and not waiting
    return HookStep(
        stage,
        delete=tuple(delete),
        waiting=tuple(waiting),
        finalizers=_without(finalizers, cleanup_finalizer(FINALIZERS[hook_type])) if over else None,
    )
