"""Which fields a write adds, modifies and removes, as the API server's field manager sees it.

Ownership follows from this: an update owns what it added or modified and takes those
fields from other managers; whatever it removed nobody owns any more; an apply conflicts
where it would add or modify fields another manager owns.

The API server compares typed objects, so a struct that is always present in Go's zero
value (a Deployment's `spec`, `spec.template`, `spec.strategy`) is never "added" itself,
only its fields are; the schema's `zero` says which, and an absent field counts as its
zero value. An added or removed map, list or list item is itself in the set (`.` in
FieldsV1) together with everything below it. Subtrees that are the same object on both
sides are skipped without being walked.
"""

from dataclasses import dataclass
from typing import Any

from app.engine.merge.errors import depth_guarded
from app.engine.merge.fieldpath import FIELD, MEMBER, item_element
from app.engine.merge.fieldset import FieldSet, Tree
from app.engine.merge.gvk import GroupVersionKind
from app.engine.merge.jsonvalue import MISSING, json_equal
from app.engine.merge.patch_strategies import root_for
from app.engine.merge.schema import UNTYPED, ListType, Node


@dataclass(frozen=True, slots=True)
class Comparison:
    """The fields a change from one object to another added, modified and removed."""

    added: FieldSet
    modified: FieldSet
    removed: FieldSet

    @property
    def changed(self) -> FieldSet:
        """Added or modified: what an update comes to own."""
        return self.added | self.modified

    def __bool__(self) -> bool:
        return bool(self.added or self.modified or self.removed)


@depth_guarded("compare")
def compare(old: dict[str, Any] | None, new: dict[str, Any], gvk: GroupVersionKind) -> Comparison:
    """What changed from `old` (None: nothing yet) to `new`, field by field."""
    return compare_objects(old or {}, new, root_for(gvk))


def compare_objects(old: dict[str, Any], new: dict[str, Any], node: Node) -> Comparison:
    out = _Trees()
    if old is not new:
        _compare_objects(old, new, node, out)
    return Comparison(FieldSet(out.added), FieldSet(out.modified), FieldSet(out.removed))


class _Trees:
    """The three FieldsV1 trees a comparison fills at one level of the objects."""

    __slots__ = ("added", "modified", "removed")

    def __init__(self) -> None:
        self.added: Tree = {}
        self.modified: Tree = {}
        self.removed: Tree = {}


def _compare_objects(old: dict[str, Any], new: dict[str, Any], node: Node, out: _Trees) -> None:
    fields = node.fields
    for key, after in new.items():
        before = old.get(key, MISSING)
        if before is after:
            continue
        child = fields.get(key, UNTYPED)
        if before is MISSING:
            before = child.zero
        _compare(FIELD + key, before, after, child, out)
    for key, before in old.items():
        if key not in new:
            child = fields.get(key, UNTYPED)
            _compare(FIELD + key, before, child.zero, child, out)


def _compare(element: str, before: Any, after: Any, node: Node, out: _Trees) -> None:
    if before is MISSING:
        out.added[element] = _everything(after, node)
        return
    if after is MISSING:
        out.removed[element] = _everything(before, node)
        return
    kind = type(after) if after is not None else type(before)
    below = _Trees()
    if (
        kind is dict
        and not node.atomic
        and (before is None or type(before) is dict)
        and (after is None or type(after) is dict)
        and (before or after)
    ):
        _compare_objects(before or {}, after or {}, node, below)
    elif (
        kind is list
        and node.list_type is not ListType.ATOMIC
        and (before is None or type(before) is list)
        and (after is None or type(after) is list)
        and (before or after)
    ):
        _compare_lists(before or [], after or [], node, below)
    else:
        if not json_equal(before, after):
            out.modified[element] = {}
        return
    if below.added:
        out.added[element] = below.added
    if below.modified:
        out.modified[element] = below.modified
    if below.removed:
        out.removed[element] = below.removed


def _compare_lists(old: list[Any], new: list[Any], node: Node, out: _Trees) -> None:
    before = _by_element(old, node)
    element = node.element
    for pe, after in _by_element(new, node).items():
        item = before.pop(pe, MISSING)
        if item is not after:
            _compare(pe, item, after, element, out)
    for pe, item in before.items():
        out.removed[pe] = _everything(item, element)


def _by_element(items: list[Any], node: Node) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for index, item in enumerate(items):
        out.setdefault(item_element(item, node, index), item)
    return out


def _everything(value: Any, node: Node) -> Tree:
    """The node of `value` and every path below it, all members."""
    kind = type(value)
    if kind is dict and value and not node.atomic:
        fields = node.fields
        tree: Tree = {MEMBER: {}}
        for key, item in value.items():
            tree[FIELD + key] = _everything(item, fields.get(key, UNTYPED))
        return tree
    if kind is list and value and node.list_type is not ListType.ATOMIC:
        element = node.element
        tree = {MEMBER: {}}
        for pe, item in _by_element(value, node).items():
            tree[pe] = _everything(item, element)
        return tree
    return {}
