"""`argocd-rbac-cm`, read unchanged, as Argo CD reads it.

- `policy.csv`: `p, <subject>, <resource>, <action>, <object>[, allow|deny]` and
  `g, <subject>, <role>` lines; `#` starts a comment line.
- `policy.<name>.csv`: more lines, appended after `policy.csv` in key order.
- `policy.default`: the role every authenticated caller has (e.g. `role:readonly`).
- `policy.matchMode`: `glob` (default) or `regex`, how resource, action and object
  patterns match.
- `scopes`: the token claims whose values are the caller's groups (default `[groups]`).

Lines are CSV (quotes allowed), as Argo CD parses them. Every line is checked: a `p` line
needs four or five fields and an effect of `allow` or `deny`, a `g` line two; in regex
mode every pattern must compile. A map with any bad line is refused whole
(`RbacConfigError` lists every problem) so the policy in force never runs on half of
what the operator wrote. Regular expressions must match the whole value (Argo CD's Go
matcher finds them anywhere; see docs/decisions.md).
"""

import csv
import enum
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from app.engine.project import glob_regex

POLICY_CSV = "policy.csv"
POLICY_DEFAULT = "policy.default"
MATCH_MODE = "policy.matchMode"
SCOPES = "scopes"
DEFAULT_SCOPES = ("groups",)
MAX_VALUE_BYTES = 1 << 20
"""Largest value of one key read."""
MAX_LINES = 20_000
"""Most policy lines one map may hold."""
MAX_FIELD = 1024
"""Longest field of a policy line."""

_OVERLAY = re.compile(r"^policy\.[^.]+\.csv$")


class MatchMode(enum.Enum):
    GLOB = "glob"
    REGEX = "regex"


@dataclass(frozen=True, slots=True)
class Rule:
    """One policy line: `p` with (subject, resource, action, object, effect) or `g` with
    (subject, role)."""

    kind: str
    values: tuple[str, ...]
    glob: bool = False
    """Written as a glob whatever the match mode (the built-in and generated lines)."""

    def patterns(self, mode: MatchMode) -> tuple[str, ...]:
        """The values as the matcher of `mode` reads them."""
        if self.kind != "p" or not self.glob or mode is MatchMode.GLOB:
            return self.values
        sub, res, act, obj, eft = self.values
        return (sub, glob_regex(res), glob_regex(act), glob_regex(obj), eft)


def allow(subject: str, resource: str, action: str, obj: str, *, glob: bool = True) -> Rule:
    return Rule("p", (subject, resource, action, obj, "allow"), glob=glob)


def member(subject: str, role: str) -> Rule:
    return Rule("g", (subject, role))


@dataclass(frozen=True, slots=True)
class RbacConfig:
    """The policy an operator wrote, with the settings that say how to apply it."""

    rules: tuple[Rule, ...] = ()
    default_role: str = ""
    match_mode: MatchMode = MatchMode.GLOB
    scopes: tuple[str, ...] = DEFAULT_SCOPES


class RbacConfigError(ValueError):
    """The map cannot be used; `problems` names every bad key and line."""

    def __init__(self, origin: str, problems: Iterable[str]) -> None:
        self.problems = tuple(problems)
        super().__init__(f"{origin}: " + "; ".join(self.problems))


def _fields(line: str) -> list[str]:
    reader = csv.reader([line], skipinitialspace=True)
    return [value.strip() for value in next(reader, [])]


def _compiles(pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as e:
        return f"{pattern!r} is not a regular expression ({e})"
    return ""


def parse_line(line: str, mode: MatchMode) -> tuple[Rule | None, str]:
    """A policy line as a Rule (None for blank and comment lines), or the problem."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None, ""
    try:
        values = _fields(text)
    except csv.Error as e:
        return None, f"not a CSV line ({e})"
    if any(len(v) > MAX_FIELD for v in values):
        return None, f"a field is longer than {MAX_FIELD} characters"
    kind, rest = values[0], tuple(values[1:])
    if kind == "g":
        if len(rest) != 2 or not all(rest):
            return None, "a `g` line is `g, <subject>, <role>`"
        return Rule("g", rest), ""
    if kind != "p":
        return None, f"a line starts with `p` or `g`, not {kind!r}"
    if len(rest) == 4:
        rest = (*rest, "allow")
    if len(rest) != 5 or not all(rest[:4]):
        return None, "a `p` line is `p, <subject>, <resource>, <action>, <object>[, allow|deny]`"
    if rest[4] not in ("allow", "deny"):
        return None, f"the effect must be allow or deny, not {rest[4]!r}"
    if mode is MatchMode.REGEX:
        problem = next((p for p in map(_compiles, rest[1:4]) if p), "")
        if problem:
            return None, problem
    return Rule("p", rest), ""


def parse_policy(text: str, where: str, mode: MatchMode) -> tuple[list[Rule], list[str]]:
    """The rules of a policy text, and a problem per bad line (naming `where` and the line)."""
    rules: list[Rule] = []
    problems: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        rule, problem = parse_line(line, mode)
        if problem:
            problems.append(f"{where} line {number}: {problem}")
        elif rule is not None:
            rules.append(rule)
    return rules, problems


def _text(data: Mapping[str, Any], key: str, problems: list[str]) -> str:
    value = data.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        problems.append(f"{key}: expected a string")
        return ""
    if len(value.encode()) > MAX_VALUE_BYTES:
        problems.append(f"{key}: larger than {MAX_VALUE_BYTES} bytes")
        return ""
    return value


def _scopes(text: str, problems: list[str]) -> tuple[str, ...]:
    if not text.strip():
        return DEFAULT_SCOPES
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        value = None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        problems.append(f"{SCOPES}: expected a list of claim names, e.g. '[groups, email]'")
        return DEFAULT_SCOPES
    return tuple(value)


def _mode(text: str, problems: list[str]) -> MatchMode:
    if not text.strip():
        return MatchMode.GLOB
    try:
        return MatchMode(text.strip())
    except ValueError:
        problems.append(f"{MATCH_MODE}: expected glob or regex, not {text.strip()[:40]!r}")
        return MatchMode.GLOB


def parse_rbac_config(data: Mapping[str, Any], *, origin: str) -> RbacConfig:
    """The map's policy and settings; RbacConfigError naming every problem."""
    problems: list[str] = []
    mode = _mode(_text(data, MATCH_MODE, problems), problems)
    keys = [POLICY_CSV, *sorted(k for k in data if _OVERLAY.match(k))]
    rules: list[Rule] = []
    for key in keys:
        found, bad = parse_policy(_text(data, key, problems), key, mode)
        rules.extend(found)
        problems.extend(bad)
    if len(rules) > MAX_LINES:
        problems.append(f"more than {MAX_LINES} policy lines")
    config = RbacConfig(
        rules=tuple(rules),
        default_role=_text(data, POLICY_DEFAULT, problems).strip(),
        match_mode=mode,
        scopes=_scopes(_text(data, SCOPES, problems), problems),
    )
    if problems:
        raise RbacConfigError(origin, problems)
    return config
