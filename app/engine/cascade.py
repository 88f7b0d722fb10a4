"""Cascade deletion: what deleting an Application with the resources finalizer removes.

An Application deleted without `resources-finalizer.argocd.argoproj.io` goes at once and
leaves its resources. With it, the app stays (it carries a deletionTimestamp) while Sluice
deletes the resources it manages (tracked objects that no other object owns; their
dependents follow by garbage collection), and the finalizer comes off once none is left
to wait for. Each call looks at what is live now and says what to do next, so it can be
repeated after every change:

- a PreDelete or PostDelete hook is left alone: it runs around this deletion and goes by
  its own delete policy (`app.engine.deletion_hooks`);
- a CustomResourceDefinition is kept (deleting it would delete every custom resource of
  its kind in the cluster, not only the app's), as Argo CD does;
- `Delete=false` (the resource's sync-options annotation, else the app's syncOptions)
  keeps the resource;
- `Delete=confirm` waits until the Application carries `argocd.argoproj.io/
  deletion-approved` with a time at or after its deletionTimestamp;
- an object already being deleted is waited for;
- everything else is deleted, foreground by default; the finalizer variant
  `…/background` asks for background propagation, `…/foreground` for foreground.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from app.engine.sync.hooks import is_deletion_hook
from app.engine.sync.observation import approval_time
from app.engine.sync.options import (
    DeleteMode,
    parse_app_options,
    parse_resource_options,
)
from app.model.annotations import DELETION_APPROVED, RESOURCES_FINALIZER
from app.model.application import Application
from app.model.resource import GroupKind, KubeObject, ResourceKey, metadata
from app.model.sync import Propagation
from app.model.timestamps import parse_time

CRD = GroupKind("apiextensions.k8s.io", "CustomResourceDefinition")
BACKGROUND_FINALIZER = f"{RESOURCES_FINALIZER}/background"
FOREGROUND_FINALIZER = f"{RESOURCES_FINALIZER}/foreground"


def is_cascade_finalizer(finalizer: str) -> bool:
    return finalizer == RESOURCES_FINALIZER or finalizer.startswith(f"{RESOURCES_FINALIZER}/")


@dataclass(frozen=True, slots=True)
class CascadeStep:
    """What to do next for an app being deleted with the resources finalizer."""

    delete: tuple[KubeObject, ...]
    """Objects to delete now."""
    propagation: Propagation
    """How their dependents go."""
    waiting: tuple[str, ...]
    """Why the finalizer stays, one sentence per object still in the way."""
    kept: tuple[str, ...]
    """Objects left in the cluster on purpose, with the reason."""
    finalizers: tuple[str, ...] | None
    """The app's finalizers without the resources finalizer once nothing is left to do;
    None while objects are being deleted or waited for."""

    @property
    def done(self) -> bool:
        return self.finalizers is not None


def _deleted_at(app: Application) -> datetime | None:
    raw = app.metadata.deletion_timestamp
    try:
        return parse_time(raw) if raw else None
    except ValueError:
        return None


def _approved(app: Application) -> bool:
    approved, deleted = approval_time(app.metadata.annotations), _deleted_at(app)
    return approved is not None and deleted is not None and approved >= deleted


def cascade_step(app: Application, tracked: Iterable[KubeObject]) -> CascadeStep:
    """The next step of deleting `app`'s resources, given the live objects it tracks."""
    app_delete = parse_app_options(app.spec.sync_options).delete
    delete: list[KubeObject] = []
    waiting: list[str] = []
    kept: list[str] = []
    for obj in sorted(tracked, key=ResourceKey.of):
        meta = metadata(obj)
        if meta.get("ownerReferences") or is_deletion_hook(obj):
            continue
        key = ResourceKey.of(obj)
        mode = parse_resource_options(obj).delete or app_delete or DeleteMode.ENABLED
        if key.group_kind == CRD:
            kept.append(f"{key}: a CustomResourceDefinition is never deleted with an app")
        elif mode is DeleteMode.DISABLED:
            kept.append(f"{key}: Delete=false")
        elif meta.get("deletionTimestamp"):
            waiting.append(f"{key} is being deleted")
        elif mode is DeleteMode.CONFIRM and not _approved(app):
            waiting.append(
                f"{key} has Delete=confirm: annotate the Application with "
                f"{DELETION_APPROVED}=<now, RFC 3339> to delete it"
            )
        else:
            delete.append(obj)
    background = BACKGROUND_FINALIZER in app.metadata.finalizers
    finalizers = None
    if not delete and not waiting:
        finalizers = tuple(f for f in app.metadata.finalizers if not is_cascade_finalizer(f))
    return CascadeStep(
        delete=tuple(delete),
        propagation=Propagation.BACKGROUND if background else Propagation.FOREGROUND,
        waiting=tuple(waiting),
        kept=tuple(kept),
        finalizers=finalizers,
    )
