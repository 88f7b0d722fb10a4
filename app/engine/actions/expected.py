"""What an action library's tests expect (`action_test.yaml`, Argo CD's layout), compared
with what the actions did: the first difference, in words, or None when they agree.

- Discovery: the actions offered must be exactly the expected names; each must agree
  on `disabled` (false when not written), and on `iconClass`, `displayName` and
  `params` where the test writes them.
- An action's output: the expected object(s) against the objects the action returns.
  One expected object and one returned are compared directly; otherwise they are paired
  by group, kind, namespace and name. Objects are compared whole, with Lua's data model
  allowed for: a number is equal to the same number as a float (Lua 5.1 has only
  doubles), an empty table is an empty map or list, and two RFC 3339 timestamps are
  equal whatever their value (an action stamps the time it runs, as a restart does).
"""

import re
from collections.abc import Mapping, Sequence

from app.engine.actions.types import ImpactedResource, ResourceAction
from app.model.resource import KubeObject, metadata

_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)")
_SHOWN = 80
"""Longest value quoted in a difference."""


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _path(parent: str, key: object) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else str(key)


def _mapping_difference(
    expected: Mapping[str, object], got: Mapping[str, object], at: str
) -> str | None:
    for key in expected:
        if key not in got:
            return f"{_path(at, key)}: expected {_shown(expected[key])}, got nothing"
        found = difference(expected[key], got[key], _path(at, key))
        if found:
            return found
    extra = [key for key in got if key not in expected]
    if extra:
        return f"{_path(at, extra[0])}: not expected, got {_shown(got[extra[0]])}"
    return None


def _list_difference(expected: list[object], got: list[object], at: str) -> str | None:
    if len(expected) != len(got):
        return f"{at or 'the object'}: expected {len(expected)} item(s), got {len(got)}"
    for i, (e, g) in enumerate(zip(expected, got, strict=True)):
        found = difference(e, g, _path(at, i))
        if found:
            return found
    return None


def _same_scalar(expected: object, got: object) -> bool:
    if isinstance(expected, bool) or isinstance(got, bool):
        return type(expected) is type(got) and expected == got
    if isinstance(expected, int | float) and isinstance(got, int | float):
        return expected == got
    if isinstance(expected, str) and isinstance(got, str):
        timestamps = _TIMESTAMP.fullmatch(expected) and _TIMESTAMP.fullmatch(got)
        return expected == got or bool(timestamps)
    return expected is None and got is None


def difference(expected: object, got: object, at: str = "") -> str | None:
    """The first place `got` differs from `expected`, or None."""
    if expected in ({}, []) and got in ({}, []):
        return None
    if isinstance(expected, Mapping) and isinstance(got, Mapping):
        return _mapping_difference(expected, got, at)
    if isinstance(expected, list) and isinstance(got, list):
        return _list_difference(expected, got, at)
    if _same_scalar(expected, got):
        return None
    return f"{at or 'the object'}: expected {_shown(expected)}, got {_shown(got)}"


def _identity(obj: KubeObject) -> str:
    meta = metadata(obj)
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    namespace, name = meta.get("namespace") or "", meta.get("name") or ""
    return f"{group}/{obj.get('kind')} {namespace}/{name}".lstrip("/")


def output_difference(
    expected: Sequence[KubeObject], changes: Sequence[ImpactedResource]
) -> str | None:
    """Where what an action returned differs from the expected objects, or None."""
    if len(expected) == 1 and len(changes) == 1:
        return difference(expected[0], changes[0].obj)
    returned = {_identity(c.obj): c for c in changes}
    for want in expected:
        change = returned.pop(_identity(want), None)
        if change is None:
            listed = ", ".join(_identity(c.obj) for c in changes) or "nothing"
            return f"expected {_identity(want)}, the action returned {listed}"
        found = difference(want, change.obj)
        if found:
            return f"{change.operation} {_identity(want)}: {found}"
    if returned:
        return f"not expected: {', '.join(f'{c.operation} {k}' for k, c in returned.items())}"
    return None


def _params_difference(expected: object, action: ResourceAction) -> str | None:
    """Each expected parameter against the offered one, on the fields the test writes."""
    where = f"{action.name}.params"
    if not isinstance(expected, list) or not all(isinstance(p, Mapping) for p in expected):
        return f"{where}: the test must give a list of {{name, type, default}}"
    if len(expected) != len(action.params):
        return f"{where}: expected {len(expected)} parameter(s), got {len(action.params)}"
    for i, (want, param) in enumerate(zip(expected, action.params, strict=True)):
        got = {"name": param.name, "type": param.type, "default": param.default}
        found = difference(dict(want), {k: got.get(k) for k in want}, f"{where}[{i}]")
        if found:
            return found
    return None


def discovery_difference(
    expected: Sequence[Mapping[str, object]], offered: Sequence[ResourceAction]
) -> str | None:
    """Where the actions offered differ from a discovery test's `result`, or None."""
    by_name = {a.name: a for a in offered}
    want = [str(e.get("name", "")) for e in expected]
    if sorted(want) != sorted(by_name):
        return (
            f"expected actions {', '.join(sorted(want)) or 'none'}, "
            f"offered {', '.join(sorted(by_name)) or 'none'}"
        )
    for entry, name in zip(expected, want, strict=True):
        action = by_name[name]
        disabled = entry.get("disabled", False)
        if not isinstance(disabled, bool):
            return f"{name}: the test's disabled must be true or false, not {_shown(disabled)}"
        if disabled is not action.disabled:
            return f"{name}: expected disabled {disabled}, got {action.disabled}"
        found = None
        if "iconClass" in entry:
            found = difference(entry["iconClass"], action.icon_class, f"{name}.iconClass")
        if not found and "displayName" in entry:
            found = difference(entry["displayName"], action.display_name, f"{name}.displayName")
        if not found and "params" in entry:
            found = _params_difference(entry["params"], action)
        if found:
            return found
    return None
