"""The shape of a field as merging sees it: a node per field, shared by every algorithm.

A `Node` describes one field of a kind: how strategic merge patch treats it
(`x-kubernetes-patch-strategy` / `patch-merge-key`), how server-side apply treats it
(`x-kubernetes-list-type`, `list-map-keys`, `map-type`/`struct-type` atomic), and
whether it exists in Go's zero value of the kind (so ownership tracking does not count
`spec` as added on create, exactly like the API server which compares typed objects).

Only fields that differ from the defaults are described; anything else is `UNTYPED`:
maps merge key by key, lists are atomic (replaced whole, owned whole). The table of
real Kubernetes fields lives in `patch_strategies`; lookups are plain dict gets on
nodes built once at import, so a walk never resolves a path twice.
"""

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.engine.merge.jsonvalue import MISSING


class ListType(enum.Enum):
    """Server-side apply's view of a list (`x-kubernetes-list-type`)."""

    ATOMIC = "atomic"
    """Replaced and owned as a whole."""
    SET = "set"
    """Scalars merged by value: `v:"x"` in FieldsV1."""
    MAP = "map"
    """Objects merged by key fields: `k:{"name":"x"}` in FieldsV1."""


class PatchStrategy(enum.Enum):
    """Strategic merge patch's view of a field (`x-kubernetes-patch-strategy`)."""

    DEFAULT = ""
    """Maps merge key by key; lists are replaced."""
    MERGE = "merge"
    """Lists merge: by `merge_key` for objects, by value for scalars."""
    REPLACE = "replace"
    """Maps are replaced whole."""


@dataclass(frozen=True, slots=True, eq=False)
class Node:
    """How one field merges. Build nodes with the helpers in `patch_strategies`."""

    fields: Mapping[str, "Node"] = field(default_factory=dict)
    """Children that do not merge the default way, by JSON field name."""
    item: "Node | None" = None
    """The element of a list (None: untyped)."""
    list_type: ListType = ListType.ATOMIC
    keys: tuple[str, ...] = ()
    """Server-side apply's list-map keys, in the order the API declares them."""
    key_defaults: Mapping[str, Any] = field(default_factory=dict)
    """Schema defaults of key fields (a port's protocol is TCP when omitted)."""
    strategy: PatchStrategy = PatchStrategy.DEFAULT
    merge_key: str = ""
    """Strategic merge patch's key for lists of objects ("" for lists of scalars)."""
    retain_keys: bool = False
    """`retainKeys`: a patch lists the keys to keep; others are cleared."""
    atomic: bool = False
    """A map replaced and owned as a whole by server-side apply (`structType=atomic`)."""
    zero: Any = MISSING
    """The field's value in Go's zero object of the kind: `{}`, None, or MISSING."""

    def child(self, name: str) -> "Node":
        return self.fields.get(name, UNTYPED)

    @property
    def element(self) -> "Node":
        return self.item if self.item is not None else UNTYPED


UNTYPED = Node()
"""A field with no special rules: maps merge, lists are atomic and replaced."""
