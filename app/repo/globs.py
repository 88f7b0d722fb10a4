"""Glob patterns as Argo CD reads them, matched without backtracking blow-ups.

Two dialects:

- `directory.include` / `directory.exclude` (gobwas/glob, no separators): `*` and `**`
  match any run of characters including `/`, `?` one character, `[abc]`, `[a-z]`,
  `[!abc]`, `{a,b}` alternatives (nestable), `\\` escapes. The whole path relative to
  source.path must match: `*.yaml` matches `x.yaml` and `sub/x.yaml`.
- manifest-generate-paths (Go's `filepath.Match`): `*`, `?` and classes stop at `/`, no
  braces, `[^abc]` negation.

Patterns are user input, so matching must stay cheap whatever they contain: braces are
expanded up front (bounded), and each alternative is matched by the classic single-star
backtracking walk (time proportional to pattern length times path length), never a regex.
"""

import enum
import re
from dataclasses import dataclass

from app.repo.errors import PathError

MAX_PATTERN_LENGTH = 1024
MAX_ALTERNATIVES = 256


@dataclass(frozen=True, slots=True)
class _Class:
    ranges: tuple[tuple[str, str], ...]
    negated: bool

    def matches(self, ch: str) -> bool:
        return any(lo <= ch <= hi for lo, hi in self.ranges) != self.negated


class _Wild(enum.Enum):
    STAR = "*"
    ANY = "?"


_Token = str | _Wild | _Class
"""A literal character, a wildcard, or a character class."""
_STAR = _Wild.STAR


class _Parser:
    def __init__(self, pattern: str, field: str, *, braces: bool) -> None:
        self.pattern = pattern
        self.field = field
        self.braces = braces
        self.pos = 0

    def fail(self, problem: str) -> PathError:
        return PathError(self.field, f"pattern {self.pattern!r} {problem}")

    def parse(self) -> list[list[_Token]]:
        alternatives = self._sequence(depth=0, in_braces=False)
        if self.pos != len(self.pattern):
            raise self.fail(f"has an unexpected {self.pattern[self.pos]!r}")
        return alternatives

    def _sequence(self, depth: int, in_braces: bool) -> list[list[_Token]]:
        """Alternatives of the text up to the end, or to `,`/`}` inside braces."""
        results: list[list[_Token]] = [[]]
        while self.pos < len(self.pattern):
            ch = self.pattern[self.pos]
            if in_braces and ch in ",}":
                return results
            self.pos += 1
            if ch == "\\":
                if self.pos >= len(self.pattern):
                    raise self.fail("ends with a lone backslash")
                literal = self.pattern[self.pos]
                self.pos += 1
                results = [[*r, literal] for r in results]
            elif ch == "*":
                results = [r if r[-1:] == [_STAR] else [*r, _STAR] for r in results]
            elif ch == "?":
                results = [[*r, _Wild.ANY] for r in results]
            elif ch == "[":
                cls = self._class()
                results = [[*r, cls] for r in results]
            elif ch == "{" and self.braces:
                options = self._braces(depth + 1)
                results = [r + o for r in results for o in options]
                if len(results) > MAX_ALTERNATIVES:
                    raise self.fail(f"expands to more than {MAX_ALTERNATIVES} alternatives")
            else:
                results = [[*r, ch] for r in results]
        if in_braces:
            raise self.fail("has an unclosed '{'")
        return results

    def _braces(self, depth: int) -> list[list[_Token]]:
        if depth > 16:
            raise self.fail("nests braces too deeply")
        options: list[list[_Token]] = []
        while True:
            options.extend(self._sequence(depth, in_braces=True))
            if self.pos >= len(self.pattern):
                raise self.fail("has an unclosed '{'")
            closing = self.pattern[self.pos]
            self.pos += 1
            if closing == "}":
                return options

    def _class(self) -> _Class:
        negated = self.pos < len(self.pattern) and self.pattern[self.pos] in "!^"
        if negated:
            self.pos += 1
        ranges: list[tuple[str, str]] = []
        first = True
        while True:
            if self.pos >= len(self.pattern):
                raise self.fail("has an unclosed '['")
            ch = self.pattern[self.pos]
            self.pos += 1
            if ch == "]" and not first:
                return _Class(tuple(ranges), negated)
            first = False
            if ch == "\\":
                if self.pos >= len(self.pattern):
                    raise self.fail("has an unclosed '['")
                ch = self.pattern[self.pos]
                self.pos += 1
            hi = ch
            if (
                self.pos + 1 < len(self.pattern)
                and self.pattern[self.pos] == "-"
                and self.pattern[self.pos + 1] != "]"
            ):
                hi = self.pattern[self.pos + 1]
                self.pos += 2
                if hi < ch:
                    raise self.fail(f"has an inverted range '{ch}-{hi}'")
            ranges.append((ch, hi))


def _token_matches(token: _Token, ch: str) -> bool:
    if isinstance(token, _Class):
        return token.matches(ch)
    if token is _Wild.ANY:
        return True
    return token == ch


def _match(tokens: list[_Token], text: str) -> bool:
    p = t = 0
    star_p, star_t = -1, 0
    while t < len(text):
        if p < len(tokens) and tokens[p] is _STAR:
            star_p, star_t = p, t
            p += 1
        elif p < len(tokens) and _token_matches(tokens[p], text[t]):
            p += 1
            t += 1
        elif star_p >= 0:
            star_t += 1
            p, t = star_p + 1, star_t
        else:
            return False
    while p < len(tokens) and tokens[p] is _STAR:
        p += 1
    return p == len(tokens)


def _split_segments(tokens: list[_Token]) -> list[list[_Token]]:
    segments: list[list[_Token]] = [[]]
    for item in tokens:
        if item == "/":
            segments.append([])
        else:
            segments[-1].append(item)
    return segments


@dataclass(frozen=True, slots=True)
class Glob:
    """A compiled pattern; `matches(path)` is true when the whole path matches."""

    pattern: str
    alternatives: tuple[tuple[_Token, ...], ...]
    slash_separates: bool

    def matches(self, path: str) -> bool:
        if not self.slash_separates:
            return any(_match(list(alt), path) for alt in self.alternatives)
        parts = path.split("/")
        for alt in self.alternatives:
            segments = _split_segments(list(alt))
            if len(segments) == len(parts) and all(
                _match(s, p) for s, p in zip(segments, parts, strict=True)
            ):
                return True
        return False


_LEAVES = re.compile(r"(?:^|[/{,])\.\.(?:$|[/},])|^\s*/")
"""A `..` segment (in any brace alternative) or a leading `/`: a pattern that points outside
the source's path, which the paths it is matched against (relative to it) never are."""


def compile_directory_glob(pattern: str, *, field: str) -> Glob:
    """`directory.include`/`exclude` (gobwas dialect); PathError names `field` if malformed,
    or if the pattern leaves source.path (it would match nothing: an include like that
    renders no manifest at all, and with prune on a sync would delete the whole app)."""
    if _LEAVES.search(pattern):
        raise PathError(
            field,
            f"pattern {pattern!r} leaves source.path: the pattern is matched against paths "
            "relative to source.path (for example '*.yaml' or 'sub/**'); point source.path "
            "at the directory instead",
        )
    return _compile(pattern, field, braces=True, slash_separates=False)


def compile_path_glob(pattern: str, *, field: str) -> Glob:
    """A `filepath.Match` pattern (manifest-generate-paths); `*` stops at `/`."""
    return _compile(pattern, field, braces=False, slash_separates=True)


def _compile(pattern: str, field: str, *, braces: bool, slash_separates: bool) -> Glob:
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise PathError(field, f"pattern is longer than {MAX_PATTERN_LENGTH} characters")
    alternatives = _Parser(pattern, field, braces=braces).parse()
    return Glob(pattern, tuple(tuple(a) for a in alternatives), slash_separates)
