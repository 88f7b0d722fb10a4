"""Argo CD's `fields` query parameter: only the named parts of a JSON answer, or all but them.

`fields=items.metadata.name,items.status.sync.status` keeps those paths of the answer
(and the objects on the way to them); a path that names a list goes on into each of its
items, so `items.metadata.name` is every item's name. A leading `-` drops the named
paths instead (`fields=-items.status.history`). Argo CD's UI asks its list this way, so
a list of 1,000 apps carries only what the page shows.

A handler may also ask `wants(...)` whether any kept field lies under a path, to skip
reading what the answer would drop (the list skips every app's deployment history).
"""

from dataclasses import dataclass
from typing import Any

from app.api.errors import BadRequest

MAX_FIELDS = 64
"""Paths one `fields` parameter may name."""
MAX_DEPTH = 16
"""Segments one path may have."""
_Tree = dict[str, "_Tree"]


@dataclass(frozen=True, slots=True)
class FieldSelection:
    """The parsed parameter: a tree of path segments; a leaf keeps (or drops) its subtree."""

    tree: _Tree
    exclude: bool

    def wants(self, *path: str) -> bool:
        """Whether the answer keeps anything under `path`."""
        node = self.tree
        for segment in path:
            if not node:
                return not self.exclude
            if segment not in node:
                return self.exclude
            node = node[segment]
        return not self.exclude or bool(node)


def parse_fields(text: str) -> FieldSelection | None:
    """The selection `text` asks for; None when it asks for none. BadRequest for a path
    that cannot be used, naming it."""
    exclude = text.startswith("-")
    paths = [p.strip() for p in text.removeprefix("-").split(",") if p.strip()]
    if not paths:
        return None
    if len(paths) > MAX_FIELDS:
        raise BadRequest(f"fields: {len(paths)} paths given; the limit is {MAX_FIELDS}")
    tree: _Tree = {}
    leaves: list[_Tree] = []
    for path in paths:
        segments = path.split(".")
        if len(segments) > MAX_DEPTH or not all(segments):
            raise BadRequest(
                f"fields: {path[:80]!r} is not a dotted path of at most {MAX_DEPTH} names "
                "(e.g. items.metadata.name)"
            )
        node = tree
        for segment in segments:
            node = node.setdefault(segment, {})
        leaves.append(node)
    for leaf in leaves:
        leaf.clear()
    return FieldSelection(tree, exclude)


def _keep(value: Any, node: _Tree) -> Any:
    if not node:
        return value
    if isinstance(value, list):
        return [_keep(item, node) for item in value]
    if not isinstance(value, dict):
        return value
    return {key: _keep(value[key], child) for key, child in node.items() if key in value}


def _drop(value: Any, node: _Tree) -> Any:
    if isinstance(value, list):
        return [_drop(item, node) for item in value]
    if not isinstance(value, dict):
        return value
    return {
        key: _drop(item, node[key]) if key in node else item
        for key, item in value.items()
        if key not in node or node[key]
    }


def select(doc: Any, selection: FieldSelection) -> Any:
    """`doc` with only the selected paths (or without them)."""
    return _drop(doc, selection.tree) if selection.exclude else _keep(doc, selection.tree)
