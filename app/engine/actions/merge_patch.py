"""The JSON merge patch (RFC 7386) that turns one object into another.

Arrays are replaced whole, as merge patches do; a key removed becomes `null`. The
caller patches with it, so fields the action did not touch are not sent at all, and a
concurrent change elsewhere in the object is kept.
"""

from typing import Any


def merge_patch(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The merge patch from `old` to `new` ({} when they are equal)."""
    patch: dict[str, Any] = {}
    for key in old.keys() - new.keys():
        patch[key] = None
    for key, value in new.items():
        before = old.get(key, _ABSENT)
        if isinstance(value, dict) and isinstance(before, dict):
            nested = merge_patch(before, value)
            if nested:
                patch[key] = nested
        elif before is _ABSENT or before != value or type(before) is not type(value):
            patch[key] = value
    return patch


_ABSENT: Any = object()
