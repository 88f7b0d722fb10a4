"""jqPathExpressions: `del(<expression>)` run by libjq, with a bounded cost.

Argo CD evaluates each `jqPathExpressions` entry as `del(expr)` with a 1 s timeout
(CVE-2024-32476 was a pathological expression stalling the controller). Sluice uses the
`jq` package (libjq), compiled once per expression and cached. A preemptive timeout is not
available to the engine: libjq runs with the GIL held for the whole evaluation (measured:
a second Python thread does not run at all meanwhile), so a worker thread cannot be
abandoned, and the engine may not start processes. So the cost is bounded by construction:

1. Admission, at compile time: an expression may use only an allowlist of builtins whose
   cost is linear (or n log n) in the object: field access, `[]`, `select`, comparisons,
   `and`/`or`/`not`, string tests, `..` (at most twice), `map`, `to_entries`, ... Nothing
   that loops or recurses without bound (`def`, `reduce`, `foreach`, `while`, `until`,
   `repeat`, `range`, `recurse(f)`, `limit`, `label`, `walk`, `combinations`), nothing that
   reads the environment (`env`, `$ENV`, `input`), no assignment, no `*` (string
   repetition) and at most a few `+` and `,` (each can double the work). Regular
   expressions are bounded by Oniguruma's retry limit inside libjq, and a pattern with
   a quantified group that itself contains a quantifier (`(a+)+`, the catastrophic
   backtracking shape) is rejected, since the limit alone still costs ~0.2 s per string.
2. A deadline, measured: an evaluation that still takes longer than `deadline` seconds
   fails with `JqDeadlineExceeded`, and the expression is disabled for the life of the
   process, so it can cost at most one slow evaluation, never a stalled loop of them.

A rejected or failing expression is an error naming the field and the reason; it is never
silently skipped.
"""

import json
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import jq

from app.model.errors import SpecError

DEFAULT_DEADLINE = 1.0
MAX_LENGTH = 1024
MAX_COMMAS = 16
MAX_PLUS = 4
MAX_DESCENTS = 2

_ALLOWED_BUILTINS = """
select empty not length utf8bytelength keys keys_unsorted has in inside contains
startswith endswith ltrimstr rtrimstr trim ltrim rtrim test match capture split splits
sub gsub ascii_downcase ascii_upcase tostring tonumber type any all map map_values
to_entries from_entries with_entries first last nth index rindex indices join paths
leaf_paths path getpath del add values nulls booleans numbers strings arrays objects
iterables scalars true false null and or if then elif else end as try catch error
isempty tojson fromjson unique unique_by sort sort_by group_by min max min_by max_by
reverse flatten explode implode abs floor ceil round recurse tostream
"""
_ALLOWED = frozenset(_ALLOWED_BUILTINS.split())
_DESCENTS = frozenset({"recurse", "paths", "leaf_paths", "tostream"})
_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<comment>\#[^\n]*)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<field>\.[a-zA-Z_][a-zA-Z0-9_]*)
  | (?P<descent>\.\.)
  | (?P<variable>\$[a-zA-Z_][a-zA-Z0-9_]*)
  | (?P<format>@[a-zA-Z0-9_]+)
  | (?P<ident>[a-zA-Z_][a-zA-Z0-9_]*(?:::[a-zA-Z_][a-zA-Z0-9_]*)*)
  | (?P<number>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)
  | (?P<op>\?//|==|!=|<=|>=|//=|\|=|\+=|-=|\*=|/=|%=|//|[.|,+\-*/%<>=?()\[\]{}:;])
    """,
    re.VERBOSE,
)
_REGEX_BUILTINS = frozenset({"test", "match", "capture", "scan", "split", "splits", "sub", "gsub"})
_ASSIGNMENTS = frozenset({"=", "|=", "+=", "-=", "*=", "/=", "%=", "//="})


class JqDeadlineExceeded(RuntimeError):
    """An evaluation ran past its deadline; the expression is now disabled."""


class JqEvaluationError(RuntimeError):
    """libjq reported an error evaluating `del(expr)` on an object."""


def _reject(field_path: str, expression: str, why: str) -> SpecError:
    return SpecError(
        field_path,
        f"jq expression {expression!r} {why}; write a path expression such as "
        '.spec.template.spec.containers[] | select(.name == "sidecar")',
    )


def nested_quantifier(pattern: str) -> bool:
    """True if a quantified group contains a quantifier itself, as in `(a+)+` or `(\\w*x)*`."""
    stack: list[bool] = []
    quantified_inside = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if char == "(":
            stack.append(quantified_inside)
            quantified_inside = False
        elif char == ")" and stack:
            inner = quantified_inside
            quantified_inside = stack.pop() or inner
            following = pattern[i + 1 : i + 2]
            if inner and following in ("*", "+", "{"):
                return True
        elif char in "*+{":
            quantified_inside = True
        i += 1
    return False


@dataclass(slots=True)
class _Tally:
    """What the admission limits bound, counted over an expression's tokens."""

    commas: int = 0
    plus: int = 0
    descents: int = 0
    uses_regex: bool = False
    strings: list[str] = field(default_factory=list)

    def refusal(self) -> str:
        """Why the whole expression is refused ("" if it is admitted)."""
        if self.uses_regex and any(nested_quantifier(json.loads(text)) for text in self.strings):
            return (
                "has a regular expression with a quantified group containing a quantifier "
                "(like (a+)+), which can backtrack catastrophically"
            )
        for count, limit, what in (
            (self.commas, MAX_COMMAS, "','"),
            (self.plus, MAX_PLUS, "'+'"),
            (self.descents, MAX_DESCENTS, "recursive descents (.., recurse, paths)"),
        ):
            if count > limit:
                return f"uses more than {limit} {what}"
        return ""


def _ident_refusal(text: str, rest: str, tally: _Tally) -> str:
    if text not in _ALLOWED:
        return (
            f"uses {text!r}, which is not allowed (it can loop, recurse or read outside the object)"
        )
    tally.uses_regex = tally.uses_regex or text in _REGEX_BUILTINS
    if text in _DESCENTS:
        tally.descents += 1
        if text == "recurse" and rest.lstrip().startswith("("):
            return "uses recurse(f), which can loop without bound"
    return ""


def _op_refusal(text: str, tally: _Tally) -> str:
    if text in _ASSIGNMENTS:
        return f"assigns with {text!r}, which is not allowed"
    if text == "*":
        return "multiplies with '*', which is not allowed"
    tally.commas += text == ","
    tally.plus += text == "+"
    return ""


def _token_refusal(kind: str | None, text: str, rest: str, tally: _Tally) -> str:
    """Why one token is refused ("" if it is admitted), counting it in `tally`; `rest` is
    the expression after it."""
    if kind == "string":
        if "\\(" in text:
            return "uses string interpolation, which is not allowed"
        tally.strings.append(text)
    elif kind == "variable" and text in ("$ENV", "$__loc__", "$__prog_args"):
        return f"reads {text}, which is not allowed"
    elif kind == "format" and text not in ("@text", "@json", "@base64", "@base64d", "@uri"):
        return f"uses {text}, which is not allowed"
    elif kind == "ident":
        return _ident_refusal(text, rest, tally)
    elif kind == "descent":
        tally.descents += 1
    elif kind == "op":
        return _op_refusal(text, tally)
    return ""


def admit(expression: str, field_path: str) -> None:
    """Raise SpecError unless `expression` passes the admission rules (module docstring)."""
    if not expression.strip():
        raise _reject(field_path, expression, "is empty")
    if len(expression) > MAX_LENGTH:
        raise _reject(
            field_path, expression[:40] + "...", f"is longer than {MAX_LENGTH} characters"
        )
    tally = _Tally()
    pos = 0
    while pos < len(expression):
        match = _TOKEN.match(expression, pos)
        if match is None:
            raise _reject(field_path, expression, f"has an unexpected character at {pos + 1}")
        pos = match.end()
        why = _token_refusal(match.lastgroup, match.group(), expression[pos:], tally)
        if why:
            raise _reject(field_path, expression, why)
    why = tally.refusal()
    if why:
        raise _reject(field_path, expression, why)


@dataclass(slots=True)
class JqPath:
    """One admitted, compiled `del(expr)` program."""

    expression: str
    program: Any
    disabled: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def delete_from(
        self, obj: dict[str, Any], deadline: float = DEFAULT_DEADLINE
    ) -> dict[str, Any]:
        """`obj` without the paths the expression selects (a new object; `obj` is untouched)."""
        if self.disabled:
            raise JqDeadlineExceeded(self.disabled)
        started = time.perf_counter()
        try:
            result = self.program.input_text(json.dumps(obj)).first()
        except (ValueError, StopIteration) as e:
            raise JqEvaluationError(f"jq expression {self.expression!r} failed: {e}") from None
        elapsed = time.perf_counter() - started
        if elapsed > deadline:
            with self.lock:
                self.disabled = (
                    f"jq expression {self.expression!r} took {elapsed:.1f}s, over the "
                    f"{deadline:g}s deadline; it is disabled until the expression changes"
                )
            raise JqDeadlineExceeded(self.disabled)
        if not isinstance(result, dict):
            raise JqEvaluationError(
                f"jq expression {self.expression!r} turned the object into {type(result).__name__}"
            )
        return result


_CACHE: dict[str, JqPath] = {}
_CACHE_LOCK = threading.Lock()
_CACHE_MAX = 4096


def compile_jq_path(expression: str, field_path: str) -> JqPath:
    """The cached program for `expression`, or SpecError naming `field_path` and the problem."""
    cached = _CACHE.get(expression)
    if cached is not None:
        return cached
    admit(expression, field_path)
    try:
        program = jq.compile(f"del({expression})")
    except ValueError as e:
        detail = str(e).splitlines()[0].removeprefix("jq: error: ").split(" at <top-level>")[0]
        raise SpecError(
            field_path, f"jq expression {expression!r} does not compile: {detail}"
        ) from None
    compiled = JqPath(expression, program)
    with _CACHE_LOCK:
        if len(_CACHE) >= _CACHE_MAX:
            _CACHE.clear()
        return _CACHE.setdefault(expression, compiled)
