"""Strategic merge patch directives and how list items are told apart.

Directive keys, as the API server reads them:
- `$patch: replace` (map: replace it with the rest of the patch; list item: replace the
  whole list with the patch's items), `$patch: delete` (map: empty it; list item: delete
  the item with that merge key), `$patch: merge` (the default, stated explicitly);
- `$retainKeys: [..]`: clear every key of the map not listed;
- `$setElementOrder/<list>: [..]`: the order of the merged list;
- `$deleteFromPrimitiveList/<list>: [..]`: values to remove from a list of scalars.
"""

from typing import Any, Final

from app.engine.merge.errors import Fault, shown
from app.engine.merge.jsonvalue import MISSING, kind_of, scalar_key

DIRECTIVE: Final = "$patch"
RETAIN_KEYS: Final = "$retainKeys"
SET_ORDER: Final = "$setElementOrder/"
DELETE_FROM_PRIMITIVE_LIST: Final = "$deleteFromPrimitiveList/"
REPLACE: Final = "replace"
DELETE: Final = "delete"
MERGE: Final = "merge"

_KIND_NAMES: Final = {dict: "object", list: "list", str: "string", float: "number"}


def kind_name(kind: type) -> str:
    return _KIND_NAMES.get(kind, "boolean" if kind is bool else "null")


def element_kind(*lists: list[Any]) -> type:
    """The one JSON kind of every item of `lists`; a Fault if they mix kinds or nest lists."""
    kinds = {kind_of(item) for items in lists for item in items}
    if len(kinds) > 1:
        names = ", ".join(sorted(kind_name(k) for k in kinds))
        raise Fault(f"list items must all be of one type, found {names}")
    (kind,) = kinds
    if kind is list:
        raise Fault("lists of lists cannot be merged")
    return kind


def item_key(item: Any, merge_key: str, index: int) -> tuple[str, Any]:
    """The identity of a list item by its merge key; a Fault naming the item otherwise."""
    if type(item) is not dict:
        raise Fault(f"expected an object with {merge_key!r}, got {kind_name(kind_of(item))}").at(
            index
        )
    value = item.get(merge_key, MISSING)
    if value is MISSING:
        raise Fault(f"the item has no merge key {merge_key!r}; every item needs one").at(index)
    if type(value) in (dict, list):
        raise Fault(f"merge key {merge_key!r} must be a string or number, got {shown(value)}").at(
            index
        )
    return scalar_key(value)
