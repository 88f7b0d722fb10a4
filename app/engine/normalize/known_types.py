"""Canonical forms of built-in Kubernetes types, as the API server would store them.

Argo CD re-marshals objects of known types through their Go structs before diffing, so
spellings the server would change do not show as differences. Sluice does the same by
rule, for objects of the built-in API groups only (a custom resource is stored as sent):

- quantities in resource maps (`limits`, `requests`, `capacity`, `hard`, LimitRange
  `max`/`min`/`default`...) and `sizeLimit`: `1000m` -> `1`, `1024Mi` -> `1Gi`, `2` -> `2`;
- whole numbers written as floats (`3.0`) become integers (Go int fields);
- `null` values disappear (decoding null into a Go field leaves it unset);
- empty lists and maps of fields Go omits when empty (`labels: {}`, `env: []`, Role
  `rules: []` ...) disappear. Empty structs that mean something (`emptyDir: {}`,
  `podSelector: {}`, `resources: {}`) are kept.

Every function returns its input unchanged (the same object) when nothing changes, and
otherwise copies only the containers on the changed path.
"""

from typing import Any

from app.engine.normalize.quantities import canonical_quantity
from app.model.resource import KubeObject, split_api_version

BUILTIN_GROUPS = frozenset(
    {
        "",
        "apps",
        "batch",
        "autoscaling",
        "policy",
        "extensions",
        "networking.k8s.io",
        "storage.k8s.io",
        "rbac.authorization.k8s.io",
        "scheduling.k8s.io",
        "node.k8s.io",
        "coordination.k8s.io",
        "discovery.k8s.io",
        "admissionregistration.k8s.io",
        "certificates.k8s.io",
        "flowcontrol.apiserver.k8s.io",
        "events.k8s.io",
    }
)
"""API groups whose objects are canonicalized (CRDs and custom resources are not)."""

QUANTITY_MAPS = frozenset(
    {
        "limits",
        "requests",
        "capacity",
        "allocatable",
        "hard",
        "used",
        "max",
        "min",
        "default",
        "defaultRequest",
        "maxLimitRequestRatio",
        "podFixed",
    }
)
QUANTITY_SCALARS = frozenset({"sizeLimit"})
OMIT_WHEN_EMPTY = frozenset(
    {
        "labels",
        "annotations",
        "finalizers",
        "ownerReferences",
        "env",
        "envFrom",
        "args",
        "command",
        "ports",
        "volumeMounts",
        "volumeDevices",
        "volumes",
        "initContainers",
        "ephemeralContainers",
        "imagePullSecrets",
        "tolerations",
        "nodeSelector",
        "hostAliases",
        "topologySpreadConstraints",
        "readinessGates",
        "schedulingGates",
        "resourceClaims",
        "data",
        "binaryData",
        "stringData",
        "matchLabels",
        "matchExpressions",
        "rules",
        "subjects",
        "secrets",
        "accessModes",
        "mountOptions",
        "externalIPs",
        "loadBalancerSourceRanges",
        "aggregationRule",
    }
)


def is_builtin(obj: KubeObject) -> bool:
    group, _ = split_api_version(str(obj.get("apiVersion", "")))
    return group in BUILTIN_GROUPS


def _quantity(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return value
    canonical = canonical_quantity(str(value) if not isinstance(value, float) else repr(value))
    return value if canonical is None or canonical == value else canonical


def _quantity_map(value: Any) -> Any:
    if not isinstance(value, dict):
        return _walk(value)
    out = None
    for key, item in value.items():
        new = _quantity(item) if not isinstance(item, dict | list) else _walk(item)
        if new is not item and out is None:
            out = dict(value)
        if out is not None:
            out[key] = new
    return value if out is None else out


def _walk(value: Any) -> Any:
    if isinstance(value, dict):
        return _walk_dict(value)
    if isinstance(value, list):
        out = None
        for i, item in enumerate(value):
            new = _walk(item)
            if new is not item:
                if out is None:
                    out = list(value)
                out[i] = new
        return value if out is None else out
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _walk_dict(value: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] | None = None
    for key, item in value.items():
        if item is None or (key in OMIT_WHEN_EMPTY and not item and isinstance(item, dict | list)):
            if out is None:
                out = dict(value)
            del out[key]
            continue
        if key in QUANTITY_MAPS:
            new = _quantity_map(item)
        elif key in QUANTITY_SCALARS:
            new = _quantity(item)
        elif isinstance(item, dict | list | float):
            new = _walk(item)
        else:
            continue
        if new is not item:
            if out is None:
                out = dict(value)
            out[key] = new
    return value if out is None else out


def canonicalize(obj: KubeObject) -> KubeObject:
    """`obj` in canonical form if it is of a built-in group; other objects as they are."""
    if not is_builtin(obj):
        return obj
    return _walk_dict(obj)
