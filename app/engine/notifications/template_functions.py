"""The values and functions of Go templates: truth, printing, Go's builtins and Sprig's.

`FUNCTIONS` is every function a template may call (`gotemplate.py` lists them); each
takes and returns plain JSON values or the Go time values of `functions.py`, and none
reaches the file system, the environment or the network.
"""

import base64
import html
import json
import re
import urllib.parse
from collections.abc import Callable, Mapping
from typing import Any

from app.engine.notifications.functions import EvalError, GoDuration, GoTime, now

MAX_OUTPUT = 256 * 1024
"""Characters a render may write; no function builds a longer string."""
NO_VALUE = "<no value>"


def truth(value: Any) -> bool:
    """Go's truth: false, 0, nil and empty strings, arrays and maps are false."""
    if isinstance(value, GoTime | GoDuration):
        return True
    return bool(value)


def show(value: Any) -> str:
    """A value as text/template prints it."""
    if value is None:
        return NO_VALUE
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}" if value != int(value) or abs(value) >= 1e21 else str(int(value))
    if isinstance(value, list):
        return "[" + " ".join(show(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "map[" + " ".join(f"{k}:{show(value[k])}" for k in sorted(value)) + "]"
    return str(value)


def _eq(a: Any, *others: Any) -> bool:
    return any(a == b for b in others)


def _cmp(op: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    def compare(a: Any, b: Any) -> bool:
        if isinstance(a, str) != isinstance(b, str):
            raise EvalError("incompatible types for comparison")
        return op(a, b)

    return compare


def _index(value: Any, *keys: Any) -> Any:
    for key in keys:
        if isinstance(value, Mapping):
            value = value.get(key)
        elif isinstance(value, list) and isinstance(key, int) and 0 <= key < len(value):
            value = value[key]
        else:
            raise EvalError(f"index of {show(key)} out of range")
    return value


_GO_VERB = re.compile(r"%([-+# 0]*\d*(?:\.\d+)?)([vsdqfxXtTeg%])")


def _printf(layout: str, *args: Any) -> str:
    values = iter(args)

    def one(m: re.Match[str]) -> str:
        flags, verb = m.groups()
        if verb == "%":
            return "%"
        value = next(values, None)
        if verb in ("v", "s", "t"):
            return f"%{flags}s" % show(value)
        if verb == "q":
            return json.dumps(show(value))
        if verb in ("d", "x", "X"):
            return f"%{flags}{verb}" % int(value or 0)
        return f"%{flags}{verb}" % float(value or 0)

    return _GO_VERB.sub(one, str(layout))


def _call(fn: Any, *args: Any) -> Any:
    if not callable(fn):
        raise EvalError("call of a value that is not a function")
    return fn(*args)


def _indent(n: int, text: str) -> str:
    pad = " " * int(n)
    return pad + str(text).replace("\n", "\n" + pad)


def _dict(*pairs: Any) -> dict[str, Any]:
    return {
        str(pairs[i]): pairs[i + 1] if i + 1 < len(pairs) else "" for i in range(0, len(pairs), 2)
    }


def _to_json(value: Any, indent: int | None = None) -> str:
    seps = (",", ": ") if indent else (",", ":")
    return json.dumps(
        value,
        default=show,
        ensure_ascii=False,
        indent=indent,
        sort_keys=True,
        separators=seps,
    )


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "and": lambda *a: next((v for v in a if not truth(v)), a[-1]),
    "or": lambda *a: next((v for v in a if truth(v)), a[-1]),
    "not": lambda v: not truth(v),
    "len": lambda v: len(v) if v is not None else 0,
    "index": _index,
    "print": lambda *a: " ".join(show(v) for v in a),
    "println": lambda *a: " ".join(show(v) for v in a) + "\n",
    "printf": _printf,
    "eq": _eq,
    "ne": lambda a, b: a != b,
    "lt": _cmp(lambda a, b: a < b),
    "le": _cmp(lambda a, b: a <= b),
    "gt": _cmp(lambda a, b: a > b),
    "ge": _cmp(lambda a, b: a >= b),
    "call": _call,
    "html": lambda *a: html.escape(" ".join(show(v) for v in a)),
    "js": lambda *a: json.dumps(" ".join(show(v) for v in a))[1:-1],
    "urlquery": lambda *a: urllib.parse.quote_plus(" ".join(show(v) for v in a)),
    "upper": lambda s: show(s).upper(),
    "lower": lambda s: show(s).lower(),
    "title": lambda s: show(s).title(),
    "trim": lambda s: show(s).strip(),
    "trimPrefix": lambda p, s: show(s).removeprefix(show(p)),
    "trimSuffix": lambda p, s: show(s).removesuffix(show(p)),
    "replace": lambda old, new, s: show(s).replace(show(old), show(new)),
    "contains": lambda sub, s: show(sub) in show(s),
    "hasPrefix": lambda p, s: show(s).startswith(show(p)),
    "hasSuffix": lambda p, s: show(s).endswith(show(p)),
    "default": lambda d, v=None: v if truth(v) else d,
    "empty": lambda v: not truth(v),
    "coalesce": lambda *a: next((v for v in a if truth(v)), None),
    "quote": lambda *a: " ".join(json.dumps(show(v) if v is not None else "") for v in a),
    "squote": lambda *a: " ".join(f"'{show(v) if v is not None else ''}'" for v in a),
    "toJson": _to_json,
    "toPrettyJson": lambda v: _to_json(v, 2),
    "toString": show,
    "join": lambda sep, items: show(sep).join(show(v) for v in (items or [])),
    "splitList": lambda sep, s: show(s).split(show(sep)),
    "substr": lambda start, end, s: show(s)[int(start) : int(end) if int(end) >= 0 else None],
    "trunc": lambda n, s: show(s)[: int(n)] if int(n) >= 0 else show(s)[int(n) :],
    "repeat": lambda n, s: show(s) * min(int(n), MAX_OUTPUT // max(1, len(show(s))) + 1),
    "indent": _indent,
    "nindent": lambda n, s: "\n" + _indent(n, s),
    "b64enc": lambda s: base64.b64encode(show(s).encode()).decode(),
    "b64dec": lambda s: base64.b64decode(show(s).encode()).decode(errors="replace"),
    "list": lambda *a: list(a),
    "dict": _dict,
    "now": now,
}
"""Every function a template may call (see the module docstring)."""
