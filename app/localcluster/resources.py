"""The type registry: which resources the local cluster serves, and how.

A `ResourceType` is one served (group, version, resource); objects are stored per
`GroupResource`, so every served version of a custom resource shares one set of objects
(conversion is `None`: only `apiVersion` changes). Built-in types are registered at
start; CustomResourceDefinitions add and remove types at run time, and every change bumps
`Registry.generation` so that discovery and OpenAPI documents are rebuilt only then.
"""

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
SUBRESOURCE_VERBS = ("get", "patch", "update")
READ_ONLY_SUBRESOURCES = frozenset({"log"})
"""Subresources that only answer GET (a pod's log)."""
SCALE_KIND = ("autoscaling", "v1", "Scale")
"""What every scale subresource reads and writes, whatever the parent type."""

_VERSION = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")


@dataclass(frozen=True, slots=True, order=True)
class GroupResource:
    """Where objects are stored: an API group and a plural resource name."""

    group: str
    resource: str

    def __str__(self) -> str:
        """The spelling in error messages: `deployments.apps`, `pods`."""
        return f"{self.resource}.{self.group}" if self.group else self.resource


@dataclass(frozen=True, slots=True)
class PrinterColumn:
    """A Table column taken from a CRD's additionalPrinterColumns."""

    name: str
    type: str
    json_path: str
    priority: int = 0
    description: str = ""
    format: str = ""


@dataclass(frozen=True, slots=True)
class ScalePaths:
    """Where a type keeps what its scale subresource shows (a CRD names them)."""

    spec_replicas: str = "spec.replicas"
    status_replicas: str = "status.replicas"
    label_selector: str = ""
    """Path of a selector string in the object; "" computes it from spec.selector."""


@dataclass(frozen=True, slots=True)
class ResourceType:
    """One served resource of one API version."""

    group: str
    version: str
    kind: str
    plural: str
    singular: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    subresources: tuple[str, ...] = ()
    """`status`, `scale` (then `scale` is set) and `log` (pods)."""
    generation: bool = True
    """metadata.generation is kept and rises when anything outside metadata/status changes."""
    field_selectors: tuple[str, ...] = ()
    """Field paths usable in fieldSelector beyond metadata.name and metadata.namespace."""
    strategic_merge: bool = True
    """Built-in types accept strategic merge patches; custom resources do not."""
    printer_columns: tuple[PrinterColumn, ...] = ()
    crd: str = ""
    """Name of the CustomResourceDefinition serving this type; empty for built-ins."""
    scale: ScalePaths | None = None
    """Set when the type has a scale subresource."""

    @property
    def group_resource(self) -> GroupResource:
        return GroupResource(self.group, self.plural)

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def has_status(self) -> bool:
        return "status" in self.subresources

    @property
    def list_kind(self) -> str:
        return self.kind + "List"

    def subresource_kind(self, subresource: str) -> tuple[str, str, str]:
        """(group, version, kind) a subresource answers with: Scale, else this type."""
        return SCALE_KIND if subresource == "scale" else (self.group, self.version, self.kind)

    def subresource_verbs(self, subresource: str) -> tuple[str, ...]:
        return ("get",) if subresource in READ_ONLY_SUBRESOURCES else SUBRESOURCE_VERBS


def version_priority(version: str) -> tuple[int, int, int, str]:
    """Kubernetes version ordering as a sort key: v2 > v1 > v1beta2 > v1beta1 > v1alpha1 > other."""
    match = _VERSION.match(version)
    if not match:
        return (0, 0, 0, version)
    major = int(match.group(1))
    stage = {"alpha": 1, "beta": 2, None: 3}[match.group(2)]
    minor = int(match.group(3) or 0)
    return (stage, major, minor, "")


@dataclass(slots=True)
class Registry:
    """Every served type, looked up by URL parts or by kind."""

    _by_path: dict[tuple[str, str, str], ResourceType] = field(default_factory=dict)
    _by_kind: dict[tuple[str, str, str], ResourceType] = field(default_factory=dict)
    _groups: dict[str, list[str]] = field(default_factory=dict)
    generation: int = 0

    def add(self, rt: ResourceType) -> None:
        """Serve `rt` (replacing a type already served at the same group/version/plural)."""
        self._by_path[(rt.group, rt.version, rt.plural)] = rt
        self._by_kind[(rt.group, rt.version, rt.kind)] = rt
        versions = self._groups.setdefault(rt.group, [])
        if rt.version not in versions:
            versions.append(rt.version)
            versions.sort(key=version_priority, reverse=True)
        self.generation += 1

    def remove(self, rt: ResourceType) -> None:
        if self._by_path.pop((rt.group, rt.version, rt.plural), None) is None:
            return
        self._by_kind.pop((rt.group, rt.version, rt.kind), None)
        if not any(g == rt.group and v == rt.version for g, v, _ in self._by_path):
            self._groups[rt.group].remove(rt.version)
            if not self._groups[rt.group]:
                del self._groups[rt.group]
        self.generation += 1

    def lookup(self, group: str, version: str, plural: str) -> ResourceType | None:
        return self._by_path.get((group, version, plural))

    def serves_version(self, group: str, version: str) -> bool:
        return version in self._groups.get(group, ())

    def groups(self) -> Iterator[tuple[str, list[str]]]:
        """(group, versions with the preferred first), core group first, then by name."""
        for group in sorted(self._groups, key=lambda g: (g != "", g)):
            yield group, list(self._groups[group])

    def in_version(self, group: str, version: str) -> list[ResourceType]:
        return sorted(
            (rt for (g, v, _), rt in self._by_path.items() if g == group and v == version),
            key=lambda rt: rt.plural,
        )

    def preferred(self, gr: GroupResource) -> ResourceType | None:
        """The type served at the group's preferred version (for storage and events)."""
        for version in self._groups.get(gr.group, ()):
            rt = self._by_path.get((gr.group, version, gr.resource))
            if rt is not None:
                return rt
        return None

    def by_kind(self, group: str, kind: str, version: str = "") -> ResourceType | None:
        """The type of `kind` at `version`, or at the group's preferred version."""
        if version:
            return self._by_kind.get((group, version, kind))
        for served in self._groups.get(group, ()):
            rt = self._by_kind.get((group, served, kind))
            if rt is not None:
                return rt
        return None

    def all(self) -> Iterable[ResourceType]:
        return self._by_path.values()

    def of_crd(self, crd_name: str) -> list[ResourceType]:
        return [rt for rt in self._by_path.values() if rt.crd == crd_name]
