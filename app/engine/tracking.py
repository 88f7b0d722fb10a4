"""Tracking: which live objects belong to which Application, and how targets say so.

Argo CD marks every object it applies with the app that owns it, and reads the mark back
to decide what an app manages and what it may prune. Three methods, set system-wide:

- `annotation` (default): `argocd.argoproj.io/tracking-id` =
  `<app>:<group>/<kind>:<namespace>/<name>`; the namespace is the object's, or the
  destination namespace for cluster-scoped objects. An object counts only if the id names
  the object itself, so an annotation copied onto another object (by a controller, or a
  `kubectl get -o yaml | kubectl apply`) never makes it the app's (self-reference check).
- `label`: `app.kubernetes.io/instance` = the app name (at most 63 characters; a longer
  name is an error with this method).
- `annotation+label`: the annotation tracks; the label is informational, truncated to 63
  characters and trimmed to end in a letter or digit.

The managed live set of an app is every live object it tracks that has no
ownerReferences (children of tracked objects are the owner's business), plus any live
object with the key of one of its targets (so a target that already exists untracked is
compared, and adopted on sync). An object requires pruning when it has no target, is live
and is tracked by this app.
"""

import enum
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from app.model.annotations import INSTANCE_LABEL, TRACKING_ID
from app.model.errors import SpecError
from app.model.resource import (
    KubeObject,
    ResourceKey,
    annotations,
    labels,
    metadata,
    split_api_version,
)

LABEL_MAX_LENGTH = 63
_ENDS_WELL = re.compile(r"[a-zA-Z0-9]$")


class TrackingMethod(enum.Enum):
    """`application.resourceTrackingMethod`, spelled as in argocd-cm."""

    ANNOTATION = "annotation"
    LABEL = "label"
    ANNOTATION_AND_LABEL = "annotation+label"

    @property
    def uses_annotation(self) -> bool:
        return self is not TrackingMethod.LABEL


@dataclass(frozen=True, slots=True)
class TrackingId:
    """A parsed `argocd.argoproj.io/tracking-id`."""

    app: str
    group: str
    kind: str
    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.app}:{self.group}/{self.kind}:{self.namespace}/{self.name}"

    @classmethod
    def parse(cls, text: str) -> "TrackingId | None":
        """The id in `text`, or None when it is not `<app>:<group>/<kind>:<namespace>/<name>`."""
        app, sep1, rest = text.partition(":")
        group_kind, sep2, namespaced_name = rest.partition(":")
        group, sep3, kind = group_kind.partition("/")
        namespace, sep4, name = namespaced_name.partition("/")
        if not (sep1 and sep2 and sep3 and sep4 and app and kind and name):
            return None
        return cls(app, group, kind, namespace, name)

    @classmethod
    def of(cls, obj: KubeObject, app: str, default_namespace: str) -> "TrackingId":
        """The id that marks `obj` as `app`'s (cluster-scoped: the destination namespace)."""
        key = ResourceKey.of(obj)
        return cls(app, key.group, key.kind, key.namespace or default_namespace, key.name)

    def refers_to(self, obj: KubeObject) -> bool:
        """True if this id names `obj` itself, not an object it was copied from."""
        key = ResourceKey.of(obj)
        return (
            self.group == key.group
            and self.kind == key.kind
            and self.name == key.name
            and key.namespace in ("", self.namespace)
        )


def instance_label_value(app: str, method: TrackingMethod) -> str:
    """The instance label value for `app`; SpecError if label tracking cannot hold it."""
    if len(app) <= LABEL_MAX_LENGTH:
        return app
    if method is TrackingMethod.LABEL:
        raise SpecError(
            "metadata.name",
            f"application name {app!r} is {len(app)} characters, longer than the "
            f"{LABEL_MAX_LENGTH} a label holds; use annotation tracking "
            "(application.resourceTrackingMethod: annotation) or a shorter name",
        )
    value = app[:LABEL_MAX_LENGTH]
    while value and not _ENDS_WELL.search(value):
        value = value[:-1]
    return value


def set_tracking(
    obj: KubeObject, *, app: str, method: TrackingMethod, default_namespace: str
) -> KubeObject:
    """A copy of target `obj` carrying the tracking metadata of `app` (only metadata is copied)."""
    meta = dict(metadata(obj))
    if method.uses_annotation:
        tracking = str(TrackingId.of(obj, app, default_namespace))
        meta["annotations"] = {**annotations(obj), TRACKING_ID: tracking}
    if method is not TrackingMethod.ANNOTATION:
        meta["labels"] = {**labels(obj), INSTANCE_LABEL: instance_label_value(app, method)}
    return {**obj, "metadata": meta}


def owning_app(obj: KubeObject, method: TrackingMethod) -> str | None:
    """The app that tracks `obj`, or None; annotation ids must refer to `obj` itself."""
    if method.uses_annotation:
        text = annotations(obj).get(TRACKING_ID)
        if not isinstance(text, str):
            return None
        tracking = TrackingId.parse(text)
        if tracking is None or not tracking.refers_to(obj):
            return None
        return tracking.app
    value = labels(obj).get(INSTANCE_LABEL)
    return value if isinstance(value, str) and value else None


def is_tracked_by(obj: KubeObject, app: str, method: TrackingMethod) -> bool:
    """True if `app` tracks `obj` (with label tracking, `app` as its label value)."""
    owner = owning_app(obj, method)
    if owner is None:
        return False
    if method is TrackingMethod.LABEL:
        return owner == instance_label_value(app, method)
    return owner == app


def select_managed(
    live: Iterable[KubeObject],
    target_keys: Iterable[ResourceKey],
    *,
    app: str,
    method: TrackingMethod,
) -> dict[ResourceKey, KubeObject]:
    """The managed live set: tracked objects without ownerReferences, plus target keys."""
    wanted = set(target_keys)
    managed: dict[ResourceKey, KubeObject] = {}
    for obj in live:
        key = ResourceKey.of(obj)
        if key in wanted or (
            not metadata(obj).get("ownerReferences") and is_tracked_by(obj, app, method)
        ):
            managed[key] = obj
    return managed


def requires_pruning(
    target: KubeObject | None, live: KubeObject | None, *, app: str, method: TrackingMethod
) -> bool:
    """No target, live exists and this app tracks it (self-referenced)."""
    return target is None and live is not None and is_tracked_by(live, app, method)


def normalize_tracking(
    target: KubeObject, live: KubeObject | None, method: TrackingMethod
) -> KubeObject:
    """With annotation tracking, a live instance label left by earlier label tracking (or a
    chart) is copied into the target, so it does not show as a difference (§4.1)."""
    if live is None or not method.uses_annotation:
        return target
    value = labels(live).get(INSTANCE_LABEL)
    if not value or labels(target).get(INSTANCE_LABEL) == value:
        return target
    meta = dict(metadata(target))
    meta["labels"] = {**labels(target), INSTANCE_LABEL: value}
    return {**target, "metadata": meta}


CLUSTER_SCOPED_KINDS: frozenset[tuple[str, str]] = frozenset(
    {
        ("", "Namespace"),
        ("", "Node"),
        ("", "PersistentVolume"),
        ("", "ComponentStatus"),
        ("rbac.authorization.k8s.io", "ClusterRole"),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
        ("apiextensions.k8s.io", "CustomResourceDefinition"),
        ("apiregistration.k8s.io", "APIService"),
        ("storage.k8s.io", "StorageClass"),
        ("storage.k8s.io", "CSIDriver"),
        ("storage.k8s.io", "CSINode"),
        ("storage.k8s.io", "VolumeAttachment"),
        ("scheduling.k8s.io", "PriorityClass"),
        ("node.k8s.io", "RuntimeClass"),
        ("networking.k8s.io", "IngressClass"),
        ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"),
        ("certificates.k8s.io", "CertificateSigningRequest"),
        ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
        ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
    }
)
"""Built-in kinds without a namespace; the cluster discovery (`scopes` arguments) overrides it."""


def is_namespaced(obj: KubeObject, scopes: Mapping[tuple[str, str], bool]) -> bool:
    """Whether `obj`'s kind is namespaced: discovery (`scopes`) first, then the built-in list."""
    group, _ = split_api_version(str(obj.get("apiVersion", "")))
    kind = str(obj.get("kind", ""))
    known = scopes.get((group, kind))
    if known is not None:
        return known
    return (group, kind) not in CLUSTER_SCOPED_KINDS


def place_target(
    obj: KubeObject, default_namespace: str, scopes: Mapping[tuple[str, str], bool]
) -> KubeObject:
    """`obj` in the destination namespace if namespaced and unset, in none if cluster-scoped."""
    meta = metadata(obj)
    namespace = meta.get("namespace") or ""
    if is_namespaced(obj, scopes):
        if namespace or not default_namespace:
            return obj
        return {**obj, "metadata": {**meta, "namespace": default_namespace}}
    if not namespace:
        return obj
    return {**obj, "metadata": {k: v for k, v in meta.items() if k != "namespace"}}
