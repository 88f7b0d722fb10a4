"""A bounded subset of the expr language (github.com/expr-lang/expr), for `when` and `oncePer`.

    app.status.operationState != nil and app.status.operationState.phase in ['Error', 'Failed']
    app.status.operationState?.syncResult?.revision
    time.Parse(app.status.health.lastTransitionTime).Add(1 * time.Minute).Before(time.Now())

Supported: literals (integers, floats, 'single', "double" and `raw` strings, `true`,
`false`, `nil`, `[arrays]`), names (`app`, `appProject`, `context`, `time`, `strings`),
member access `a.b`, `a?.b`, `a[i]`, `a?.[i]`, calls of the helpers and of Go time and
duration methods (`functions.METHODS`), unary `not`/`!`/`-`, `*` `/` `%` `+` `-`,
comparisons `==` `!=` `<` `<=` `>` `>=`, `in` / `not in` (arrays and map keys),
`contains`, `startsWith`, `endsWith`, `and`/`&&`, `or`/`||`, `??` and `cond ? a : b`.
A missing map key is nil; a member of nil is an error unless reached with `?.`.
Not supported (an error naming it): `matches` (Python's regular expressions have no time
bound), closures and the builtin functions (`all`, `filter`, `len`, ...), `let`, pipes.

Bounded: `MAX_SOURCE` characters and `MAX_DEPTH` levels of nesting; the language has no
loop, so an evaluation visits each node of the tree at most once and no expression can
hang or exhaust the worker.
"""

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.engine.notifications.functions import (
    EvalError,
    GoDuration,
    GoTime,
    method,
    type_name,
)

MAX_SOURCE = 4096
MAX_DEPTH = 48

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<number>\d+\.\d+|\d+)
    | (?P<string>'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"|`[^`]*`)
    | (?P<name>[A-Za-z_$][A-Za-z0-9_$]*)
    | (?P<op>\?\.|\?\?|==|!=|<=|>=|&&|\|\||[-+*/%<>!?:.,()\[\]])
    )""",
    re.VERBOSE,
)
_WORD_OPS = {"and", "or", "not", "in", "contains", "startsWith", "endsWith", "matches"}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0"}


@dataclass(frozen=True, slots=True)
class _Tok:
    kind: str
    """number, string, name, op, end"""
    text: str
    at: int


def _unquote(text: str) -> str:
    if text[0] == "`":
        return text[1:-1]
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), text[1:-1])


def _tokens(source: str) -> list[_Tok]:
    out: list[_Tok] = []
    at = 0
    while at < len(source):
        if source[at:].strip() == "":
            break
        m = _TOKEN.match(source, at)
        if m is None or m.end() == at:
            start = len(source) - len(source[at:].lstrip())
            raise EvalError(f"unexpected character {source[start]!r} at column {start + 1}")
        kind = m.lastgroup or "op"
        text = m.group(kind)
        if kind == "name" and text in _WORD_OPS:
            kind = "op"
        out.append(_Tok(kind, text, m.start(kind) + 1))
        at = m.end()
    out.append(_Tok("end", "", len(source) + 1))
    return out


Node = tuple[Any, ...]
"""("lit", v) ("name", n) ("member", obj, key, optional) ("index", obj, key, optional)
("call", fn, args) ("unary", op, x) ("binary", op, a, b) ("cond", c, a, b) ("array", items)"""


class _Parser:
    def __init__(self, source: str) -> None:
        self.toks = _tokens(source)
        self.pos = 0
        self.depth = 0

    def peek(self) -> _Tok:
        return self.toks[self.pos]

    def take(self) -> _Tok:
        tok = self.toks[self.pos]
        self.pos += 1
        return tok

    def expect(self, text: str) -> None:
        tok = self.take()
        if tok.text != text or tok.kind in ("string", "end"):
            found = tok.text or "the end"
            raise EvalError(f"expected {text!r} at column {tok.at}, found {found!r}")

    def at(self, *texts: str) -> bool:
        tok = self.peek()
        return tok.kind == "op" and tok.text in texts

    def parse(self) -> Node:
        node = self.ternary()
        tok = self.peek()
        if tok.kind != "end":
            raise EvalError(f"unexpected {tok.text!r} at column {tok.at}")
        return node

    def nested(self, parse: Callable[[], Node]) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise EvalError(f"nested more than {MAX_DEPTH} levels deep")
        try:
            return parse()
        finally:
            self.depth -= 1

    def ternary(self) -> Node:
        cond = self.nested(self.coalesce)
        if self.at("?"):
            self.take()
            yes = self.nested(self.ternary)
            self.expect(":")
            no = self.nested(self.ternary)
            return ("cond", cond, yes, no)
        return cond

    def _left(self, ops: tuple[str, ...], operand: Callable[[], Node]) -> Node:
        node = self.nested(operand)
        while self.at(*ops):
            op = {"&&": "and", "||": "or"}.get(self.take().text, self.toks[self.pos - 1].text)
            node = ("binary", op, node, self.nested(operand))
        return node

    def coalesce(self) -> Node:
        return self._left(("??",), self.logical_or)

    def logical_or(self) -> Node:
        return self._left(("or", "||"), self.logical_and)

    def logical_and(self) -> Node:
        return self._left(("and", "&&"), self.comparison)

    def comparison(self) -> Node:
        node = self.nested(self.additive)
        while True:
            if self.at("not") and self.toks[self.pos + 1].text == "in":
                self.pos += 2
                node = ("unary", "not", ("binary", "in", node, self.nested(self.additive)))
                continue
            if not self.at(
                "==",
                "!=",
                "<",
                "<=",
                ">",
                ">=",
                "in",
                "contains",
                "startsWith",
                "endsWith",
                "matches",
            ):
                return node
            op = self.take()
            if op.text == "matches":
                raise EvalError(f"'matches' (column {op.at}) is not supported")
            node = ("binary", op.text, node, self.nested(self.additive))

    def additive(self) -> Node:
        return self._left(("+", "-"), self.multiplicative)

    def multiplicative(self) -> Node:
        return self._left(("*", "/", "%"), self.unary)

    def unary(self) -> Node:
        if self.at("not", "!", "-", "+"):
            op = self.take().text
            return ("unary", "not" if op == "!" else op, self.nested(self.unary))
        return self.postfix()

    def postfix(self) -> Node:
        node = self.primary()
        while True:
            if self.at(".", "?."):
                optional = self.take().text == "?."
                if optional and self.at("["):
                    self.take()
                    node = ("index", node, self.nested(self.ternary), True)
                    self.expect("]")
                    continue
                name = self.take()
                if name.kind not in ("name", "op") or not name.text.isidentifier():
                    raise EvalError(f"expected a field name at column {name.at}")
                node = ("member", node, name.text, optional)
            elif self.at("["):
                self.take()
                node = ("index", node, self.nested(self.ternary), False)
                self.expect("]")
            elif self.at("("):
                self.take()
                node = ("call", node, self.arguments(")"))
            else:
                return node

    def arguments(self, close: str) -> tuple[Node, ...]:
        args: list[Node] = []
        while not self.at(close):
            args.append(self.nested(self.ternary))
            if not self.at(close):
                self.expect(",")
        self.take()
        return tuple(args)

    def primary(self) -> Node:
        tok = self.take()
        if tok.kind == "number":
            return ("lit", float(tok.text) if "." in tok.text else int(tok.text))
        if tok.kind == "string":
            return ("lit", _unquote(tok.text))
        if tok.kind == "name":
            literal = {"true": True, "false": False, "nil": None}
            if tok.text in literal:
                return ("lit", literal[tok.text])
            return ("name", tok.text)
        if tok.kind == "op" and tok.text == "(":
            node = self.nested(self.ternary)
            self.expect(")")
            return node
        if tok.kind == "op" and tok.text == "[":
            return ("array", self.arguments("]"))
        found = tok.text or "the end of the expression"
        raise EvalError(f"unexpected {found!r} at column {tok.at}")


@dataclass(frozen=True, slots=True)
class Expression:
    """A parsed expression; `run(env)` evaluates it over plain JSON values and helpers."""

    source: str
    tree: Node

    def run(self, env: Mapping[str, Any]) -> Any:
        return _Eval(env).eval(self.tree)


def compile_expression(source: str) -> Expression:
    """Parse `source`; EvalError says what is wrong and at which column."""
    if len(source) > MAX_SOURCE:
        raise EvalError(f"longer than {MAX_SOURCE} characters")
    return Expression(source, _Parser(source).parse())


def _number(value: Any, op: str) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise EvalError(f"operator {op} needs numbers, got {type_name(value)}")
    return value


def _arith(op: str, a: Any, b: Any) -> Any:
    if op == "+" and isinstance(a, str) and isinstance(b, str):
        return a + b
    if isinstance(a, GoDuration) or isinstance(b, GoDuration):
        left = a.nanoseconds if isinstance(a, GoDuration) else _number(a, op)
        right = b.nanoseconds if isinstance(b, GoDuration) else _number(b, op)
        ops = {"+": left + right, "-": left - right, "*": left * right}
        if op not in ops:
            raise EvalError(f"operator {op} is not defined on durations")
        return GoDuration(int(ops[op]))
    x, y = _number(a, op), _number(b, op)
    if op in ("/", "%") and y == 0:
        raise EvalError("division by zero")
    if op == "+":
        return x + y
    if op == "-":
        return x - y
    if op == "*":
        return x * y
    if op == "/":
        return x / y
    return x % y


def _compare(op: str, a: Any, b: Any) -> bool:
    if op == "==":
        return bool(a == b)
    if op == "!=":
        return bool(a != b)
    ordered = (
        (isinstance(a, str) and isinstance(b, str))
        or (isinstance(a, GoTime) and isinstance(b, GoTime))
        or (isinstance(a, GoDuration) and isinstance(b, GoDuration))
    )
    if not ordered:
        a, b = _number(a, op), _number(b, op)
    return bool({"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op])


class _Eval:
    def __init__(self, env: Mapping[str, Any]) -> None:
        self.env = env

    def eval(self, node: Node) -> Any:
        kind = node[0]
        if kind == "lit":
            return node[1]
        if kind == "name":
            return self.env.get(node[1])
        if kind in ("member", "index"):
            return self.access(node)
        if kind == "call":
            return self.call(node)
        if kind == "array":
            return [self.eval(item) for item in node[1]]
        if kind == "cond":
            return self.eval(node[2]) if self.truth(node[1]) else self.eval(node[3])
        if kind == "unary":
            return self.unary(node[1], node[2])
        return self.binary(node[1], node[2], node[3])

    def truth(self, node: Node) -> bool:
        value = self.eval(node)
        if not isinstance(value, bool):
            raise EvalError(f"expected a bool, got {type_name(value)}")
        return value

    def access(self, node: Node) -> Any:
        _, target, key, optional = node
        obj = self.eval(target)
        if obj is None:
            if optional:
                return None
            raise EvalError(f"cannot fetch {self.describe(key)} from nil")
        key = key if node[0] == "member" else self.eval(key)
        if isinstance(obj, Mapping):
            return obj.get(key)
        if isinstance(obj, list) and isinstance(key, int) and not isinstance(key, bool):
            return obj[key] if -len(obj) <= key < len(obj) else None
        if isinstance(key, str):
            bound = method(obj, key)
            if bound is not None:
                return bound
        raise EvalError(f"cannot fetch {self.describe(key)} from {type_name(obj)}")

    def describe(self, key: Any) -> str:
        return key if isinstance(key, str) else "an index"

    def call(self, node: Node) -> Any:
        fn = self.eval(node[1])
        if not callable(fn):
            raise EvalError(f"{type_name(fn)} is not a function")
        args = [self.eval(arg) for arg in node[2]]
        try:
            return fn(*args)
        except TypeError:
            raise EvalError(f"wrong number or kind of arguments ({len(args)})") from None

    def unary(self, op: str, operand: Node) -> Any:
        if op == "not":
            return not self.truth(operand)
        value = self.eval(operand)
        if isinstance(value, GoDuration):
            return GoDuration(-value.nanoseconds if op == "-" else value.nanoseconds)
        number = _number(value, op)
        return -number if op == "-" else number

    def binary(self, op: str, left: Node, right: Node) -> Any:
        if op == "and":
            return self.truth(left) and self.truth(right)
        if op == "or":
            return self.truth(left) or self.truth(right)
        if op == "??":
            value = self.eval(left)
            return value if value is not None else self.eval(right)
        a, b = self.eval(left), self.eval(right)
        if op in ("+", "-", "*", "/", "%"):
            return _arith(op, a, b)
        if op == "in":
            if isinstance(b, Mapping):
                return a in b
            if isinstance(b, Sequence) and not isinstance(b, str):
                return a in b
            raise EvalError(f"operator in needs an array or a map, got {type_name(b)}")
        if op in ("contains", "startsWith", "endsWith"):
            if not isinstance(a, str) or not isinstance(b, str):
                raise EvalError(f"operator {op} needs strings")
            return {"contains": b in a, "startsWith": a.startswith(b), "endsWith": a.endswith(b)}[
                op
            ]
        return _compare(op, a, b)
