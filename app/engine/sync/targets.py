"""The objects a sync applies are the objects the comparison judged: one preparation.

`split_targets` is the only place rendered manifests become targets, for the comparison
(`app.engine.compare`), the sync planner and an app's deletion hooks alike, so a sync
applies exactly what compare judged. Each manifest is placed (the destination namespace
for a namespaced kind without one, no namespace for a cluster-scoped kind) and marked
with the app's tracking metadata; a key that appears more than once keeps its last
occurrence (compare reports it with a RepeatedResourceWarning). A `generateName` hook has
no name to key it by: it is keyed by its generateName and its position among the
manifests (Argo CD's `DeduplicateTargetObjects`), so every such hook is kept.

A manifest of a kind the system settings exclude (`app.engine.exclusions`) is set apart:
compare reports it with an ExcludedResourceWarning, a sync never applies it, and an app's
deletion never creates an excluded PreDelete/PostDelete hook (the caller says which were
left out).
"""

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from app.engine.tracking import TrackingMethod, place_target, set_tracking
from app.model.resource import KubeObject, ResourceKey


@dataclass(frozen=True, slots=True)
class SplitTargets:
    """The manifests a comparison, a sync or a deletion acts on, and those set apart."""

    by_key: dict[ResourceKey, KubeObject] = field(default_factory=dict)
    """Placed and tracked, by key; a repeated key keeps its last occurrence (and position)."""
    excluded: list[KubeObject] = field(default_factory=list)
    """Placed, not tracked: manifests of a kind the settings exclude on this cluster."""
    repeated: dict[ResourceKey, int] = field(default_factory=dict)
    """Keys that appeared more than once, with how often, in order of first appearance."""

    @property
    def targets(self) -> list[KubeObject]:
        """The placed and tracked targets, in manifest order."""
        return list(self.by_key.values())


def _key(obj: KubeObject, position: int) -> ResourceKey:
    """The object's key; a `generateName` object (a hook) has no name yet, so it goes by
    its generateName and its position among the manifests, as Argo CD keys it."""
    key = ResourceKey.of(obj)
    if key.name:
        return key
    generate = (obj.get("metadata") or {}).get("generateName")
    if isinstance(generate, str) and generate:
        return ResourceKey(key.group, key.kind, key.namespace, f"{generate}{position}")
    return key


def split_targets(
    manifests: Iterable[KubeObject],
    *,
    app: str,
    namespace: str,
    tracking: TrackingMethod,
    scopes: Mapping[tuple[str, str], bool],
    excluded: Callable[[str, str], bool] = lambda _group, _kind: False,
) -> SplitTargets:
    """The manifests placed in `namespace` (the destination's) and tracked as `app`'s (the
    app's instance name), apart from those of a kind `excluded(group, kind)` says the
    settings exclude.

    `scopes` maps (group, kind) to namespaced-or-not from the cluster's discovery.
    """
    prepared: dict[ResourceKey, KubeObject] = {}
    counts: dict[ResourceKey, int] = {}
    left_out: list[KubeObject] = []
    for position, manifest in enumerate(manifests):
        placed = place_target(manifest, namespace, scopes)
        key = _key(placed, position)
        if excluded(key.group, key.kind):
            left_out.append(placed)
            continue
        counts[key] = counts.get(key, 0) + 1
        prepared.pop(key, None)
        prepared[key] = set_tracking(placed, app=app, method=tracking, default_namespace=namespace)
    repeated = {key: count for key, count in counts.items() if count > 1}
    return SplitTargets(prepared, left_out, repeated)
