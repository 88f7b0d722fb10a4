"""Merging an applied configuration into the live object, as server-side apply does.

The applied value wins at every leaf; maps merge key by key; atomic maps and lists are
replaced; lists merged by key or value keep the live-only items where they stood and
the applied items in the applied order (the API server's interleaving: a live item
stays ahead of an applied one when it stood ahead of it before). A null in the applied
configuration sets the leaf to null and is dropped from the stored object afterwards, as
the API server's typed round trip drops it; a null over a live map or list keeps it.

Nothing is removed here: pruning what a manager stopped applying is the caller's step.
"""

from typing import Any, Final

from app.engine.merge.fieldpath import item_element, key_element, value_element
from app.engine.merge.jsonvalue import MISSING
from app.engine.merge.schema import UNTYPED, ListType, Node

_EMPTY: Final[dict[str, Any]] = {}


class Nulls:
    """Whether a merge met a null (so the result needs them dropped)."""

    __slots__ = ("seen",)

    def __init__(self) -> None:
        self.seen = False


def merge_object(
    live: dict[str, Any], applied: dict[str, Any], node: Node, nulls: Nulls
) -> dict[str, Any]:
    """`live` with `applied` merged in; shares every subtree `applied` does not touch."""
    out: dict[str, Any] | None = None
    fields = node.fields
    for key, value in applied.items():
        current = live.get(key, MISSING)
        new = _merge(current, value, fields.get(key, UNTYPED), nulls)
        if new is current:
            continue
        if out is None:
            out = dict(live)
        out[key] = new
    return live if out is None else out


def _merge(current: Any, value: Any, node: Node, nulls: Nulls) -> Any:
    kind = type(value)
    if value is None:
        nulls.seen = True
        keeps = type(current) in (dict, list) and current and not _atomic(current, node)
        return current if keeps else None
    if kind is dict:
        if node.atomic:
            return value
        return merge_object(current if type(current) is dict else _EMPTY, value, node, nulls)
    if kind is list and node.list_type is not ListType.ATOMIC:
        live = current if type(current) is list else []
        return _merge_list(live, value, node, nulls)
    return value


def _atomic(value: Any, node: Node) -> bool:
    return node.atomic if type(value) is dict else node.list_type is ListType.ATOMIC


def _merge_list(live: list[Any], applied: list[Any], node: Node, nulls: Nulls) -> list[Any]:
    element = node.element
    keyed = node.list_type is ListType.MAP
    wanted: dict[str, Any] = {}
    for item in applied:
        pe = key_element(item, node) if keyed else value_element(item)
        wanted[pe] = item
    present: dict[str, Any] = {}
    for index, item in enumerate(live):
        present.setdefault(item_element(item, node, index), item)
    order = list(wanted)
    shared = [pe for pe in order if pe in present]
    out: list[Any] = []
    done: set[str] = set()
    live_pes = list(present)
    li = ri = si = 0
    while li < len(live_pes) or ri < len(order):
        if li < len(live_pes) and ri < len(order):
            pe = live_pes[li]
            if pe == order[ri]:
                out.append(_merge(present[pe], wanted[pe], element, nulls))
                done.add(pe)
                li, ri, si = li + 1, ri + 1, si + 1
                continue
            if pe in wanted and si < len(shared) and shared[si] != pe:
                li += 1
                continue
        if li < len(live_pes):
            pe = live_pes[li]
            if pe not in wanted:
                out.append(present[pe])
                li += 1
                continue
            if pe in done:
                li += 1
                continue
        pe = order[ri]
        out.append(_merge(present.get(pe, MISSING), wanted[pe], element, nulls))
        done.add(pe)
        ri += 1
        if si < len(shared) and shared[si] == pe:
            si += 1
    if len(out) == len(live) and all(a is b for a, b in zip(out, live, strict=True)):
        return live
    return out
