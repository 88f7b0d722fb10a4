"""Kubernetes label selectors, parsed once and matched per object's labels.

The syntax of `k8s.io/apimachinery/pkg/labels`: `a=b`, `a==b`, `a!=b`, `a`, `!a`,
`a in (x,y)`, `a notin (x,y)`, `a>1`, `a<1`, comma-separated and all required. `!=` and
`notin` also match objects without the label. Pure: the local cluster answers a bad
selector with 400 BadRequest, the API with its own 400, both from `SelectorError`.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass


class SelectorError(ValueError):
    """A label selector that does not parse; the message says where and why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


MAX_SELECTOR_LENGTH = 4096
_KEY = re.compile(
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
    r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$"
)
_VALUE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$")
_TOKEN = re.compile(r"\s*(==|!=|=|\(|\)|,|!|>|<|[^\s=!(),<>]+)")
_SET_OPERATORS = ("in", "notin")


@dataclass(frozen=True, slots=True)
class Requirement:
    """One label requirement; `op` is one of = != in notin exists !exists > <."""

    key: str
    op: str
    values: frozenset[str] = frozenset()

    def matches(self, labels: Mapping[str, str]) -> bool:
        present = self.key in labels
        value = labels.get(self.key, "")
        if self.op == "exists":
            return present
        if self.op == "!exists":
            return not present
        if self.op in ("=", "in"):
            return present and value in self.values
        if self.op in ("!=", "notin"):
            return not present or value not in self.values
        if not present:
            return False
        try:
            number = int(value)
        except ValueError:
            return False
        bound = int(next(iter(self.values)))
        return number > bound if self.op == ">" else number < bound


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """Every requirement must hold; the empty selector matches everything."""

    requirements: tuple[Requirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        return all(r.matches(labels) for r in self.requirements)

    @property
    def empty(self) -> bool:
        return not self.requirements


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise SelectorError(f"unable to parse label selector {text!r} at position {pos}")
        out.append(match.group(1))
        pos = match.end()
    return out


def _key(token: str, selector: str) -> str:
    if not _KEY.match(token) or len(token) > 316:
        raise SelectorError(
            f"unable to parse label selector {selector!r}: {token!r} is not a valid label key "
            "(name or prefix/name, alphanumerics, '-', '_', '.')"
        )
    return token


def _value(token: str, selector: str) -> str:
    if not _VALUE.match(token):
        raise SelectorError(
            f"unable to parse label selector {selector!r}: {token!r} is not a valid label value "
            "(63 characters at most: alphanumerics, '-', '_', '.')"
        )
    return token


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.pos = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, what: str) -> str:
        token = self.peek()
        if token is None:
            raise SelectorError(f"unable to parse label selector {self.text!r}: expected {what}")
        self.pos += 1
        return token

    def requirement(self) -> Requirement:
        first = self.take("a label key")
        if first == "!":
            return Requirement(_key(self.take("a label key after '!'"), self.text), "!exists")
        key = _key(first, self.text)
        op = self.peek()
        if op is None or op == ",":
            return Requirement(key, "exists")
        self.pos += 1
        if op in ("=", "==", "!="):
            value = self.peek()
            if value is None or value == ",":
                value = ""
            else:
                self.pos += 1
            return Requirement(
                key, "!=" if op == "!=" else "=", frozenset({_value(value, self.text)})
            )
        if op in (">", "<"):
            bound = self.take("an integer")
            if not re.fullmatch(r"-?\d+", bound):
                raise SelectorError(
                    f"unable to parse label selector {self.text!r}: {bound!r} is not an integer"
                )
            return Requirement(key, op, frozenset({bound}))
        if op in _SET_OPERATORS:
            return Requirement(key, op, self.value_set())
        raise SelectorError(
            f"unable to parse label selector {self.text!r}: unknown operator {op!r} "
            "(use =, ==, !=, in, notin, >, < or a bare key)"
        )

    def value_set(self) -> frozenset[str]:
        if self.take("'('") != "(":
            raise SelectorError(f"unable to parse label selector {self.text!r}: expected '('")
        values: set[str] = set()
        while True:
            item = self.take("a value or ')'")
            if item == ")":
                break
            if item == ",":
                continue
            values.add(_value(item, self.text))
        return frozenset(values)

    def parse(self) -> LabelSelector:
        requirements: list[Requirement] = []
        while self.peek() is not None:
            requirements.append(self.requirement())
            separator = self.peek()
            if separator is None:
                break
            if separator != ",":
                raise SelectorError(
                    f"unable to parse label selector {self.text!r}: expected ',' before "
                    f"{separator!r}"
                )
            self.pos += 1
            if self.peek() is None:
                raise SelectorError(
                    f"unable to parse label selector {self.text!r}: expected a requirement "
                    "after ','"
                )
        return LabelSelector(tuple(requirements))


def parse_label_selector(text: str) -> LabelSelector:
    """Parse a label selector; SelectorError naming the problem if it is invalid."""
    if len(text) > MAX_SELECTOR_LENGTH:
        raise SelectorError(f"label selector longer than {MAX_SELECTOR_LENGTH} characters")
    if not text.strip():
        return LabelSelector()
    return _Parser(text).parse()
