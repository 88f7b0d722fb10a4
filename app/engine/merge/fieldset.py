"""FieldSet: a set of field paths, the unit of ownership in server-side apply.

Stored the way managedFields' FieldsV1 stores it: a tree of dicts keyed by path elements
(`f:spec` → `f:replicas`), where a node belongs to the set when it is a leaf `{}` or
carries `.`. Set operations work path by path, as the API server's do: a member says
nothing about the paths below it. Removing a set from an object removes each member with
everything below it, matching list items by key or value.

`from_object` is the set an applied configuration claims: every leaf, every item of a
list merged by key or value (the item itself and its fields), atomic lists and maps
whole, empty maps and nulls as leaves. Keys omitted without a default, or given twice,
are refused the way the API server refuses them.
"""

from collections.abc import Iterable, Iterator
from typing import Any, Final, cast

from app.engine.merge.errors import Fault, ManagedFieldsError, depth_guarded
from app.engine.merge.fieldpath import (
    FIELD,
    INDEX,
    KEY,
    MEMBER,
    canonical_element,
    describe,
    key_element,
    key_names,
    keyed,
    sort_key,
    value_element,
)
from app.engine.merge.gvk import GroupVersionKind
from app.engine.merge.patch_strategies import root_for
from app.engine.merge.schema import UNTYPED, ListType, Node

Tree = dict[str, Any]
"""A FieldsV1 node: path element → child node; `.` marks membership."""

_GONE: Final = object()
_MEMBER_MARK: Final[Tree] = {}


def is_member(node: Tree) -> bool:
    return not node or MEMBER in node


def _node(member: bool, children: Tree) -> Tree | None:
    if children:
        if member:
            children[MEMBER] = _MEMBER_MARK
        return children
    return {} if member else None


def _union_children(a: Tree, b: Tree) -> Tree:
    out = {pe: sub for pe, sub in a.items() if pe != MEMBER}
    for pe, sub in b.items():
        if pe == MEMBER:
            continue
        mine = out.get(pe)
        out[pe] = sub if mine is None else union_nodes(mine, sub)
    return out


def union_nodes(a: Tree, b: Tree) -> Tree:
    if a is b:
        return a
    node = _node(is_member(a) or is_member(b), _union_children(a, b))
    assert node is not None
    return node


def _intersect_children(a: Tree, b: Tree) -> Tree:
    if len(b) < len(a):
        a, b = b, a
    out: Tree = {}
    for pe, sub in a.items():
        other = b.get(pe)
        if other is not None and pe != MEMBER:
            both = (
                sub
                if sub is other
                else _node(is_member(sub) and is_member(other), _intersect_children(sub, other))
            )
            if both is not None:
                out[pe] = both
    return out


def _subtract_children(a: Tree, b: Tree) -> Tree:
    out: Tree = {}
    for pe, sub in a.items():
        if pe == MEMBER:
            continue
        other = b.get(pe)
        if other is None:
            out[pe] = sub
        elif sub is not other:
            rest = _node(is_member(sub) and not is_member(other), _subtract_children(sub, other))
            if rest is not None:
                out[pe] = rest
    return out


class FieldSet:
    """An immutable set of field paths. Build it with the class methods."""

    __slots__ = ("_tree",)

    def __init__(self, tree: Tree | None = None) -> None:
        """Internal: `tree` is a canonical FieldsV1 tree that nobody mutates afterwards."""
        self._tree: Tree = tree if tree is not None else {}

    @classmethod
    def from_fields_v1(cls, data: Any) -> "FieldSet":
        """The set a managedFields entry's `fieldsV1` describes; ManagedFieldsError if it
        is not a FieldsV1 tree."""
        try:
            tree = _parse(data)
        except Fault as fault:
            raise ManagedFieldsError(fault.where(), fault.problem, patch_type="fieldsV1") from None
        except RecursionError:
            raise ManagedFieldsError("", "nests too deeply", patch_type="fieldsV1") from None
        if MEMBER in tree:
            raise ManagedFieldsError("", "the root cannot be a member ('.')", patch_type="fieldsV1")
        return cls(tree)

    def to_fields_v1(self) -> Tree:
        """A new FieldsV1 dict (`.` first, then elements in the API server's order)."""
        return _render(self._tree)

    @classmethod
    def from_object(cls, obj: dict[str, Any], gvk: GroupVersionKind) -> "FieldSet":
        """The fields an applied configuration sets (see the module docstring)."""
        return fields_of(obj, root_for(gvk))

    def union(self, other: "FieldSet") -> "FieldSet":
        return FieldSet(_union_children(self._tree, other._tree))

    def intersection(self, other: "FieldSet") -> "FieldSet":
        return FieldSet(_intersect_children(self._tree, other._tree))

    def difference(self, other: "FieldSet") -> "FieldSet":
        return FieldSet(_subtract_children(self._tree, other._tree))

    __or__ = union
    __and__ = intersection
    __sub__ = difference

    @depth_guarded("remove fields")
    def remove_from(self, obj: dict[str, Any]) -> dict[str, Any]:
        """A copy of `obj` without the set's members and everything below them.

        Maps and lists left empty by the removal disappear. List items are matched by
        key (with the schema's key defaults for obj's kind), by value or by index.
        """
        return remove_paths(obj, self._tree, root_for(GroupVersionKind.of(obj)))

    def paths(self) -> list[str]:
        """The members, spelled like the API server: `.spec.replicas`, sorted."""
        return list(_paths(self._tree, ""))

    @property
    def tree(self) -> Tree:
        """The FieldsV1 tree itself: read-only."""
        return self._tree

    def __bool__(self) -> bool:
        return bool(self._tree)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FieldSet) and self._tree == other._tree

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"FieldSet({self.paths()!r})"


def fields_owned_by(managed_fields: Any, managers: Iterable[str]) -> FieldSet:
    """The union of the field sets of the managedFields entries whose manager is one of
    `managers` (exact names, as Argo CD's managedFieldsManagers compares them)."""
    wanted = set(managers)
    if managed_fields is None:
        return FieldSet()
    if not isinstance(managed_fields, list):
        raise ManagedFieldsError(
            "metadata.managedFields", "must be a list", patch_type="managedFields"
        )
    owned: Tree = {}
    for index, entry in enumerate(managed_fields):
        if not isinstance(entry, dict):
            raise ManagedFieldsError(
                f"metadata.managedFields[{index}]", "must be an object", patch_type="managedFields"
            )
        if entry.get("manager") in wanted:
            try:
                fields = FieldSet.from_fields_v1(entry.get("fieldsV1") or {})
            except ManagedFieldsError as e:
                where = f"metadata.managedFields[{index}].fieldsV1"
                where += f".{e.field}" if e.field else ""
                raise ManagedFieldsError(where, e.problem, patch_type="managedFields") from None
            owned = _union_children(owned, fields.tree)
    return FieldSet(owned)


def _parse(data: Any) -> Tree:
    if type(data) is not dict:
        raise Fault("every node of a FieldsV1 tree must be an object")
    out: Tree = {}
    for element, sub in data.items():
        if element == MEMBER:
            if sub != {}:
                raise Fault("'.' must map to {}")
            out[MEMBER] = _MEMBER_MARK
            continue
        try:
            out[canonical_element(element)] = _parse(sub)
        except Fault as fault:
            raise fault.at(element) from None
    if len(out) == 1 and MEMBER in out:
        return {}
    return out


def _render(tree: Tree) -> Tree:
    out: Tree = {}
    if MEMBER in tree:
        out[MEMBER] = {}
    for element in sorted((pe for pe in tree if pe != MEMBER), key=sort_key):
        out[element] = _render(tree[element])
    return out


def _paths(tree: Tree, prefix: str) -> Iterator[str]:
    for element in sorted((pe for pe in tree if pe != MEMBER), key=sort_key):
        sub = tree[element]
        path = prefix + describe(element)
        if is_member(sub):
            yield path
        yield from _paths(sub, path)


def fields_of(obj: dict[str, Any], node: Node) -> FieldSet:
    """`FieldSet.from_object` with the kind's rules already looked up."""
    try:
        return FieldSet(_object_fields(obj, node))
    except Fault as fault:
        raise fault.error("server-side apply") from None
    except RecursionError:
        raise Fault("the configuration nests too deeply").error("server-side apply") from None


def _object_fields(obj: dict[str, Any], node: Node) -> Tree:
    tree: Tree = {}
    fields = node.fields
    for key, value in obj.items():
        child = fields.get(key, UNTYPED)
        kind = type(value)
        try:
            if kind is dict and value and not child.atomic:
                sub = _object_fields(value, child)
            elif kind is list and child.list_type is not ListType.ATOMIC:
                sub = _list_fields(value, child)
            else:
                tree[FIELD + key] = {}
                continue
        except Fault as fault:
            raise fault.at(key) from None
        if sub:
            tree[FIELD + key] = sub
    return tree


def _list_fields(items: list[Any], node: Node) -> Tree:
    tree: Tree = {}
    element = node.element
    for index, item in enumerate(items):
        try:
            if node.list_type is ListType.SET:
                if type(item) in (dict, list):
                    raise Fault("items of this list must be scalars")
                pe, sub = value_element(item), {}
            else:
                if type(item) is not dict:
                    raise Fault("items of this list must be objects")
                pe = key_element(item, node)
                fields = {} if element.atomic else _object_fields(item, element)
                sub = {MEMBER: _MEMBER_MARK, **fields} if fields else {}
        except Fault as fault:
            raise fault.at(index) from None
        if pe in tree:
            raise Fault(f"duplicate entries for {describe(pe)}; list each item once").at(index)
        tree[pe] = sub
    return tree


def remove_paths(obj: dict[str, Any], tree: Tree, node: Node) -> dict[str, Any]:
    """`obj` without the members of `tree` (structure shared where nothing is removed)."""
    result = _remove_from_object(obj, tree, node)
    return {} if result is _GONE else cast(dict[str, Any], result)


def _remove_from_value(value: Any, tree: Tree, node: Node) -> Any:
    kind = type(value)
    if kind is dict:
        return _remove_from_object(value, tree, node)
    if kind is list:
        return _remove_from_list(value, tree, node)
    return value


def _remove_from_object(obj: dict[str, Any], tree: Tree, node: Node) -> Any:
    out: dict[str, Any] | None = None
    fields = node.fields
    for element, sub in tree.items():
        if element[:2] != FIELD:
            continue
        name = element[2:]
        if name not in obj:
            continue
        if is_member(sub):
            new: Any = _GONE
        else:
            current = obj[name]
            new = _remove_from_value(current, sub, fields.get(name, UNTYPED))
            if new is current:
                continue
        if out is None:
            out = dict(obj)
        if new is _GONE:
            del out[name]
        else:
            out[name] = new
    if out is None:
        return obj
    return out if out else _GONE


def _remove_from_list(items: list[Any], tree: Tree, node: Node) -> Any:
    keys = node.keys if node.list_type is ListType.MAP else _keys_in(tree)
    by_index = any(element[:2] == INDEX for element in tree)
    out: list[Any] = []
    changed = False
    element = node.element
    for index, item in enumerate(items):
        sub = tree.get(_element_of(item, index, keys, node))
        if sub is None and by_index:
            sub = tree.get(INDEX + str(index))
        if sub is None:
            out.append(item)
            continue
        changed = True
        if is_member(sub):
            continue
        new = _remove_from_value(item, sub, element)
        out.append({} if new is _GONE else new)
    if not changed:
        return items
    return out if out else _GONE


def _keys_in(tree: Tree) -> tuple[str, ...]:
    for element in tree:
        if element[:2] == KEY:
            return key_names(element)
    return ()


def _element_of(item: Any, index: int, keys: tuple[str, ...], node: Node) -> str:
    """The element naming `item`: by key when the list has keys, else by value."""
    kind = type(item)
    if kind is dict:
        fields = {}
        for name in keys:
            value = item.get(name, node.key_defaults.get(name))
            if value is None or type(value) in (dict, list):
                return INDEX + str(index)
            fields[name] = value
        return keyed(fields) if fields else INDEX + str(index)
    if kind is list:
        return INDEX + str(index)
    return value_element(item)
