"""Semantic-version constraints over tags, with Argo CD's semantics.

Argo CD resolves a targetRevision like `>=1.2.0 <2`, `1.2.*`, `~1.2` or `^1.4` to the
commit of the highest tag satisfying it, using Masterminds/semver v3. This module restates
those rules in Python; `semver.Version` does the ordering (SemVer 2.0 precedence, build
metadata ignored), and parsing is lenient the way Masterminds' `NewVersion` is:

- versions: optional `v`, one to three numeric parts (`v1`, `1.2`, `1.2.3`), leading
  zeros allowed in them, optional `-prerelease` and `+build`;
- constraints: comparators joined by spaces or commas (AND) and `||` (OR); operators
  `=`, `!=`, `>`, `<`, `>=`, `=>`, `<=`, `=<`, `~`, `~>`, `^`; wildcards `x`, `X`, `*`
  in any part (`1.2.x` is `>=1.2.0 <1.3.0`); hyphen ranges `1.2 - 1.4.5`;
- a prerelease version only satisfies a comparator that itself names a prerelease.

Known differences from Argo CD: a tag `0.0.0` can be chosen here (Masterminds starts its
search at 0.0.0 and requires strictly greater), and prerelease identifiers are compared as
strings when only equality matters (`!=1.2.x-beta`), where Masterminds compares them by
precedence; both only matter for tags nobody writes.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass

import semver

_IDENTS = r"[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*"
_VERSION = re.compile(rf"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-({_IDENTS}))?(?:\+({_IDENTS}))?$")

_PART = r"(?:\d+|[xX*])"
_C_VERSION = rf"v?{_PART}(?:\.{_PART})?(?:\.{_PART})?(?:-{_IDENTS})?(?:\+{_IDENTS})?"
_OPS = r"!=|>=|=>|<=|=<|~>|>|<|=|~|\^"
_COMPARATOR = re.compile(rf"(?P<op>{_OPS})?\s*(?P<version>{_C_VERSION})")
_SEGMENT = re.compile(
    rf"^\s*(?:{_OPS})?\s*{_C_VERSION}(?:(?:\s*,\s*|\s+)(?:{_OPS})?\s*{_C_VERSION})*\s*$"
)
_HYPHEN_RANGE = re.compile(rf"\s*({_C_VERSION})\s+-\s+({_C_VERSION})\s*")
_PARTS = re.compile(
    rf"^v?(?P<major>{_PART})(?:\.(?P<minor>{_PART}))?(?:\.(?P<patch>{_PART}))?"
    rf"(?:-(?P<pre>{_IDENTS}))?(?:\+(?P<build>{_IDENTS}))?$"
)


def _valid_prerelease(pre: str) -> bool:
    return all(not (p.isdigit() and len(p) > 1 and p.startswith("0")) for p in pre.split("."))


def parse_version(text: str) -> semver.Version | None:
    """A version the way Masterminds' lenient `NewVersion` reads it, or None."""
    m = _VERSION.match(text.strip())
    if m is None or (m[4] and not _valid_prerelease(m[4])):
        return None
    return semver.Version(int(m[1]), int(m[2] or 0), int(m[3] or 0), m[4] or None, m[5] or None)


@dataclass(frozen=True, slots=True)
class _Comparator:
    op: str
    version: semver.Version
    dirty: bool
    """Some part was a wildcard or missing (`1.2`, `1.x`, `*`)."""
    minor_dirty: bool
    patch_dirty: bool

    def allows(self, v: semver.Version) -> bool:
        c = self.version
        if self.op == "!=":
            return self._not_equal(v)
        if v.prerelease and not c.prerelease:
            return False
        if self.op in ("", "="):
            return self._tilde(v) if self.dirty else v.compare(c) == 0
        if self.op == ">":
            return self._greater(v)
        if self.op == "<":
            return v.compare(c) < 0
        if self.op in (">=", "=>"):
            return v.compare(c) >= 0
        if self.op in ("<=", "=<"):
            return self._less_equal(v)
        if self.op in ("~", "~>"):
            return self._tilde(v)
        return self._caret(v)

    def _not_equal(self, v: semver.Version) -> bool:
        c = self.version
        if not self.dirty:
            return v.compare(c) != 0
        if v.prerelease and not c.prerelease:
            return False
        if c.major != v.major:
            return True
        if self.minor_dirty:
            return False
        if c.minor != v.minor:
            return True
        if self.patch_dirty:
            return bool(v.prerelease or c.prerelease) and v.prerelease != c.prerelease
        if c.patch != v.patch:
            return True
        return v.compare(c) != 0

    def _greater(self, v: semver.Version) -> bool:
        c = self.version
        if not self.dirty or (not self.minor_dirty and not self.patch_dirty):
            return v.compare(c) > 0
        if v.major != c.major:
            return v.major > c.major
        if self.minor_dirty:
            return False
        return v.minor > c.minor

    def _less_equal(self, v: semver.Version) -> bool:
        c = self.version
        if not self.dirty:
            return v.compare(c) <= 0
        if v.major > c.major:
            return False
        return not (v.major == c.major and v.minor > c.minor and not self.minor_dirty)

    def _tilde(self, v: semver.Version) -> bool:
        c = self.version
        if v.compare(c) < 0:
            return False
        if (
            (c.major, c.minor, c.patch) == (0, 0, 0)
            and not self.minor_dirty
            and not self.patch_dirty
        ):
            return True
        if v.major != c.major:
            return False
        return v.minor == c.minor or self.minor_dirty

    def _caret(self, v: semver.Version) -> bool:
        c = self.version
        if v.compare(c) < 0:
            return False
        if c.major > 0 or self.minor_dirty:
            return v.major == c.major
        if v.major > 0:
            return False
        if c.minor > 0 or self.patch_dirty:
            return v.minor == c.minor
        if v.minor > 0:
            return False
        return v.patch == c.patch


def _is_x(part: str | None) -> bool:
    return part is None or part in ("x", "X", "*")


def _comparator(op: str, text: str) -> _Comparator:
    m = _PARTS.match(text)
    assert m is not None, text
    pre = m["pre"]
    major, minor, patch = m["major"], m["minor"], m["patch"]
    minor_dirty = patch_dirty = dirty = False
    if _is_x(major):
        numbers, dirty = (0, 0, 0), True
    elif _is_x(minor):
        numbers, dirty, minor_dirty = (int(major), 0, 0), True, True
    elif _is_x(patch):
        numbers, dirty, patch_dirty = (int(major), int(minor or 0), 0), True, True
    else:
        numbers = (int(major), int(minor or 0), int(patch or 0))
    version = semver.Version(*numbers, prerelease=pre or None)
    return _Comparator(op, version, dirty, minor_dirty, patch_dirty)


@dataclass(frozen=True, slots=True)
class Constraint:
    """A parsed constraint: OR of AND-groups of comparators."""

    text: str
    groups: tuple[tuple[_Comparator, ...], ...]

    def allows(self, version: semver.Version) -> bool:
        return any(all(c.allows(version) for c in group) for group in self.groups)


MAX_CONSTRAINT_LENGTH = 255


def parse_constraint(text: str) -> Constraint | None:
    """The constraint `text` describes, or None when it is not one (a plain name)."""
    if len(text) > MAX_CONSTRAINT_LENGTH:
        return None
    collapsed = " ".join(text.split())
    rewritten = _HYPHEN_RANGE.sub(lambda m: f" >= {m[1]}, <= {m[2]} ", collapsed)
    groups: list[tuple[_Comparator, ...]] = []
    for segment in rewritten.split("||"):
        if not _SEGMENT.match(segment):
            return None
        found = [_comparator(m["op"] or "", m["version"]) for m in _COMPARATOR.finditer(segment)]
        groups.append(tuple(found))
    return Constraint(text, tuple(groups))


@dataclass(frozen=True, slots=True)
class TagMatch:
    tag: str
    version: semver.Version


def highest_tag(constraint: Constraint, tags: Iterable[str]) -> TagMatch | None:
    """The highest tag (by SemVer precedence) satisfying the constraint; first name wins a tie."""
    best: TagMatch | None = None
    for tag in sorted(tags):
        version = parse_version(tag)
        if version is None or not constraint.allows(version):
            continue
        if best is None or version.compare(best.version) > 0:
            best = TagMatch(tag, version)
    return best
