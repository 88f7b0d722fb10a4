"""ObjectMeta: the part of `metadata` Sluice reads; everything else is kept in `extra`."""

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ObjectMeta:
    name: str
    namespace: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    finalizers: list[str] = field(default_factory=list)
    uid: str = ""
    resource_version: str = ""
    generation: int = 0
    creation_timestamp: str = ""
    deletion_timestamp: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def validate(self, path: str) -> None:
        from app.model.errors import SpecError

        if not self.name:
            raise SpecError(f"{path}.name" if path else "name", "must not be empty")
