"""GroupVersionKind: which schema an object is merged with."""

from dataclasses import dataclass
from typing import Any

from app.model.resource import GroupKind, split_api_version


@dataclass(frozen=True, slots=True)
class GroupVersionKind:
    """An API group (empty for core), version and kind, as in `apps/v1` + `Deployment`."""

    group: str
    version: str
    kind: str

    @classmethod
    def of(cls, obj: dict[str, Any]) -> "GroupVersionKind":
        """The GVK of an object dict from its apiVersion and kind (empty when missing)."""
        group, version = split_api_version(str(obj.get("apiVersion") or ""))
        return cls(group, version, str(obj.get("kind") or ""))

    @property
    def api_version(self) -> str:
        """`apps/v1`, or `v1` for the core group."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def group_kind(self) -> GroupKind:
        return GroupKind(self.group, self.kind)

    def __str__(self) -> str:
        return f"{self.api_version}, Kind={self.kind}"
