"""Kubernetes objects as Sluice passes them around: plain dicts, plus typed keys.

Objects flow through Sluice as the JSON dicts the API server sends (`KubeObject`); a
`ResourceKey` identifies one object of one cluster, a `GroupKind` one type.
"""

from dataclasses import dataclass
from typing import Any

KubeObject = dict[str, Any]
"""A Kubernetes object as decoded JSON: apiVersion, kind, metadata, spec, status..."""


def split_api_version(api_version: str) -> tuple[str, str]:
    """`apps/v1` -> ("apps", "v1"); `v1` -> ("", "v1")."""
    group, _, version = api_version.rpartition("/")
    return group, version


@dataclass(frozen=True, slots=True, order=True)
class GroupKind:
    """An API group (empty for the core group) and a Kind."""

    group: str
    kind: str

    def __str__(self) -> str:
        return f"{self.group}/{self.kind}" if self.group else self.kind


@dataclass(frozen=True, slots=True, order=True)
class ResourceKey:
    """Identifies one object: group, kind, namespace (empty if cluster-scoped), name."""

    group: str
    kind: str
    namespace: str
    name: str

    @classmethod
    def of(cls, obj: KubeObject) -> "ResourceKey":
        """The key of an object dict (apiVersion, kind, metadata.namespace/name)."""
        meta = obj.get("metadata") or {}
        group, _ = split_api_version(str(obj.get("apiVersion", "")))
        return cls(
            group,
            str(obj.get("kind", "")),
            str(meta.get("namespace") or ""),
            str(meta.get("name") or ""),
        )

    @property
    def group_kind(self) -> GroupKind:
        return GroupKind(self.group, self.kind)

    def __str__(self) -> str:
        """Argo CD's spelling in messages: `group/Kind:namespace/name` (parts may be empty)."""
        return f"{self.group}/{self.kind}:{self.namespace}/{self.name}"


def metadata(obj: KubeObject) -> dict[str, Any]:
    """`obj.metadata`, or an empty dict."""
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def annotations(obj: KubeObject) -> dict[str, str]:
    """`obj.metadata.annotations`, or an empty dict."""
    ann = metadata(obj).get("annotations")
    return ann if isinstance(ann, dict) else {}


def labels(obj: KubeObject) -> dict[str, str]:
    """`obj.metadata.labels`, or an empty dict."""
    lab = metadata(obj).get("labels")
    return lab if isinstance(lab, dict) else {}
