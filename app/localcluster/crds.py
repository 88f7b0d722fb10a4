"""CustomResourceDefinitions: validate them, compute their status, serve their types.

A CRD is checked the way apiextensions-apiserver checks it (name is `<plural>.<group>`,
exactly one storage version, a schema per version, scope and group immutable); its
status (acceptedNames, storedVersions, NamesAccepted and Established) is computed in the
same write, so a client that creates a CRD can use its API immediately. Names that clash
with another type of the same group are not accepted and the type is not served.
Objects are not pruned against the schema: whatever a client stores is kept.
"""

from typing import Any

from app.localcluster.errors import Cause
from app.localcluster.objectmeta import LABEL, SUBDOMAIN
from app.localcluster.resources import (
    GroupResource,
    PrinterColumn,
    Registry,
    ResourceType,
    ScalePaths,
)
from app.model.resource import KubeObject

CRDS = GroupResource("apiextensions.k8s.io", "customresourcedefinitions")
CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"


def _names(spec: dict[str, Any]) -> dict[str, Any]:
    given = spec.get("names")
    names: dict[str, Any] = given if isinstance(given, dict) else {}
    kind = str(names.get("kind") or "")
    out: dict[str, Any] = {
        "kind": kind,
        "listKind": str(names.get("listKind") or (kind + "List" if kind else "")),
        "plural": str(names.get("plural") or ""),
        "singular": str(names.get("singular") or kind.lower()),
    }
    if names.get("shortNames"):
        out["shortNames"] = list(names["shortNames"])
    if names.get("categories"):
        out["categories"] = list(names["categories"])
    return out


def schema_of(crd: KubeObject | None, version: str) -> dict[str, Any] | None:
    """The openAPIV3Schema a CRD gives `version` (None if it has none)."""
    if crd is None:
        return None
    for served in crd["spec"]["versions"]:
        if served.get("name") == version:
            schema = (served.get("schema") or {}).get("openAPIV3Schema")
            return schema if isinstance(schema, dict) else None
    return None


def validate(crd: KubeObject) -> list[Cause]:
    """Problems that make apiextensions refuse the CRD (422)."""
    spec = crd.get("spec")
    if not isinstance(spec, dict):
        return [Cause("FieldValueRequired", "Required value", "spec")]
    causes: list[Cause] = []
    group = str(spec.get("group") or "")
    names = _names(spec)
    if not group:
        causes.append(Cause("FieldValueRequired", "Required value", "spec.group"))
    elif "." not in group or not SUBDOMAIN.match(group):
        causes.append(
            Cause(
                "FieldValueInvalid",
                f"Invalid value: {group!r}: should be a domain with at least one dot",
                "spec.group",
            )
        )
    for key in ("plural", "kind"):
        if not names[key]:
            causes.append(Cause("FieldValueRequired", "Required value", f"spec.names.{key}"))
    if names["plural"] and not LABEL.match(names["plural"]):
        causes.append(
            Cause("FieldValueInvalid", "must be a lowercase DNS-1123 label", "spec.names.plural")
        )
    expected = f"{names['plural']}.{group}"
    name = str(crd["metadata"].get("name") or "")
    if names["plural"] and group and name != expected:
        causes.append(
            Cause(
                "FieldValueInvalid",
                f'Invalid value: {name!r}: must be spec.names.plural+"."+spec.group ({expected!r})',
                "metadata.name",
            )
        )
    if spec.get("scope") not in ("Namespaced", "Cluster"):
        causes.append(
            Cause(
                "FieldValueNotSupported",
                'Unsupported value: supported values: "Cluster", "Namespaced"',
                "spec.scope",
            )
        )
    causes.extend(_version_causes(spec.get("versions")))
    return causes


def _scale_causes(subresources: Any, path: str) -> list[Cause]:
    scale = subresources.get("scale") if isinstance(subresources, dict) else None
    if scale is None:
        return []
    if not isinstance(scale, dict):
        return [Cause("FieldValueInvalid", "must be an object", path)]
    return [
        Cause("FieldValueRequired", "Required value", f"{path}.{key}")
        for key in ("specReplicasPath", "statusReplicasPath")
        if not str(scale.get(key) or "").startswith(".")
    ]


def _version_causes(versions: Any) -> list[Cause]:
    if not isinstance(versions, list) or not versions:
        return [Cause("FieldValueRequired", "must have at least one version", "spec.versions")]
    causes: list[Cause] = []
    storage = 0
    for i, version in enumerate(versions):
        path = f"spec.versions[{i}]"
        if not isinstance(version, dict):
            causes.append(Cause("FieldValueInvalid", "must be an object", path))
            continue
        if not LABEL.match(str(version.get("name") or "")):
            causes.append(
                Cause("FieldValueInvalid", "must be a DNS-1123 label such as v1", f"{path}.name")
            )
        storage += 1 if version.get("storage") is True else 0
        causes.extend(_scale_causes(version.get("subresources"), f"{path}.subresources.scale"))
        schema = version.get("schema")
        if not isinstance(schema, dict) or not isinstance(schema.get("openAPIV3Schema"), dict):
            causes.append(
                Cause(
                    "FieldValueRequired",
                    "Required value: schemas are required",
                    f"{path}.schema.openAPIV3Schema",
                )
            )
    if storage != 1:
        causes.append(
            Cause(
                "FieldValueInvalid",
                "must have exactly one version marked as storage version",
                "spec.versions",
            )
        )
    return causes


def _condition(kind: str, ok: bool, reason: str, message: str, when: str) -> dict[str, str]:
    return {
        "type": kind,
        "status": "True" if ok else "False",
        "reason": reason,
        "message": message,
        "lastTransitionTime": when,
    }


def _clash(registry: Registry, crd_name: str, group: str, names: dict[str, Any]) -> str:
    """Which name of `names` another type of `group` already uses, or ""."""
    wanted = {names["plural"], names["singular"], *names.get("shortNames", ())}
    for rt in registry.all():
        if rt.group != group or rt.crd == crd_name:
            continue
        taken = {rt.plural, rt.singular, *rt.short_names}
        if wanted & taken:
            return f"{sorted(wanted & taken)[0]!r} is already in use"
        if rt.kind == names["kind"]:
            return f"kind {rt.kind!r} is already in use"
    return ""


def status(crd: KubeObject, old: KubeObject | None, registry: Registry, now: str) -> dict[str, Any]:
    """The status apiextensions would settle on for `crd`."""
    spec = crd["spec"]
    names = _names(spec)
    clash = _clash(registry, str(crd["metadata"]["name"]), str(spec["group"]), names)
    previous = (old or {}).get("status") or {}
    stored = list(previous.get("storedVersions") or [])
    for version in spec["versions"]:
        if version.get("storage") is True and version["name"] not in stored:
            stored.append(version["name"])
    conditions = [
        _condition(
            "NamesAccepted",
            not clash,
            "NameConflict" if clash else "NoConflicts",
            clash or "no conflicts found",
            now,
        ),
        _condition(
            "Established",
            not clash,
            "NotAccepted" if clash else "InitialNamesAccepted",
            "not all names are accepted" if clash else "the initial names have been accepted",
            now,
        ),
    ]
    if crd["metadata"].get("deletionTimestamp"):
        conditions.append(
            _condition(
                "Terminating",
                True,
                "InstanceDeletionInProgress",
                "CustomResource deletion is in progress",
                now,
            )
        )
    for condition in conditions:
        for before in previous.get("conditions") or ():
            if (
                before.get("type") == condition["type"]
                and before.get("status") == condition["status"]
            ):
                condition["lastTransitionTime"] = before.get("lastTransitionTime", now)
    return {
        "acceptedNames": {"kind": "", "plural": ""} if clash else names,
        "conditions": conditions,
        "storedVersions": stored,
    }


def established(crd: KubeObject) -> bool:
    for condition in (crd.get("status") or {}).get("conditions") or ():
        if condition.get("type") == "Established":
            return bool(condition.get("status") == "True")
    return False


def _columns(version: dict[str, Any]) -> tuple[PrinterColumn, ...]:
    return tuple(
        PrinterColumn(
            name=str(c.get("name") or ""),
            type=str(c.get("type") or "string"),
            json_path=str(c.get("jsonPath") or ""),
            priority=int(c.get("priority") or 0),
            description=str(c.get("description") or ""),
            format=str(c.get("format") or ""),
        )
        for c in version.get("additionalPrinterColumns") or ()
        if isinstance(c, dict)
    )


def served_types(crd: KubeObject) -> list[ResourceType]:
    """The types an established CRD serves: one per served version."""
    if not established(crd):
        return []
    spec = crd["spec"]
    names = _names(spec)
    out = []
    for version in spec["versions"]:
        if version.get("served") is False:
            continue
        subresources = version.get("subresources") or {}
        scale = subresources.get("scale")
        status = ("status",) if "status" in subresources else ()
        out.append(
            ResourceType(
                group=str(spec["group"]),
                version=str(version["name"]),
                kind=names["kind"],
                plural=names["plural"],
                singular=names["singular"],
                namespaced=spec["scope"] == "Namespaced",
                short_names=tuple(names.get("shortNames", ())),
                categories=tuple(names.get("categories", ())),
                subresources=status + (("scale",) if scale else ()),
                strategic_merge=False,
                printer_columns=_columns(version),
                crd=str(crd["metadata"]["name"]),
                scale=_scale_paths(scale) if scale else None,
            )
        )
    return out


def _scale_paths(scale: dict[str, Any]) -> ScalePaths:
    """A CRD's scale subresource: its JSONPaths (`.spec.replicas`) as dotted paths."""

    def path(key: str) -> str:
        return str(scale.get(key) or "").lstrip(".")

    return ScalePaths(
        spec_replicas=path("specReplicasPath"),
        status_replicas=path("statusReplicasPath"),
        label_selector=path("labelSelectorPath"),
    )


def serve(registry: Registry, crd: KubeObject | None, name: str) -> None:
    """Make the registry serve exactly what CRD `name` (None: deleted) defines.

    Always bumps the registry generation: the CRD's schema or printer columns may have
    changed even when its types did not, and discovery and OpenAPI are rebuilt from them.
    """
    wanted = served_types(crd) if crd is not None else []
    for rt in registry.of_crd(name):
        registry.remove(rt)
    for rt in wanted:
        registry.add(rt)
    registry.generation += 1
