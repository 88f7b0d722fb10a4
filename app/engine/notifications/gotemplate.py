"""A bounded subset of Go's text/template with Sprig's common functions, for message bodies.

Argo CD renders notification templates with Go's text/template and Sprig, so the
catalog's and users' templates are written in that syntax:

    Application {{.app.metadata.name}} is {{.app.status.sync.status}}.
    {{if eq .serviceType "slack"}}:white_check_mark:{{end}}
    {{- range $i, $c := .app.status.conditions}}{{if $i}}, {{end}}{{$c.type}}{{end}}
    {{ (call .time.Parse .app.status.operationState.startedAt).Format "15:04" }}

Supported: text and `{{ }}` actions with `{{-`/`-}}` trimming and `{{/* comments */}}`;
pipelines with `|`; fields (`.a.b`), `.`, `$`, variables (`$x := …`, `$x = …`, `$x.a`),
string, raw string, number, `true`/`false`/`nil` literals and parenthesised pipelines;
`if`/`else if`/`else`, `range` (arrays, maps by sorted key, with `$i, $v :=` and `else`),
`with`/`else`, `end`; Go time and duration methods (`.Format "layout"`, `.Unix`, ...).
Functions: Go's `and or not len index print printf println eq ne lt le gt ge call html
js urlquery`, and Sprig's `upper lower title trim trimPrefix trimSuffix replace contains
hasPrefix hasSuffix default empty coalesce quote squote toJson toPrettyJson toString
join splitList substr trunc repeat indent nindent b64enc b64dec list dict now`. Not
supported (an error naming it): `define`, `template`, `block`, `break`, `continue` and
other Sprig functions. A missing map key prints `<no value>`, as text/template does.

Bounded: `MAX_SOURCE` characters of template, `MAX_OUTPUT` characters written and
`MAX_STEPS` actions and loop turns per render, so no template can hang the worker.
"""

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.engine.notifications.functions import EvalError, method
from app.engine.notifications.template_functions import FUNCTIONS, MAX_OUTPUT, show, truth

MAX_SOURCE = 64 * 1024
MAX_STEPS = 100_000

_ACTION = re.compile(r"\{\{(-\s)?(.*?)(\s-)?\}\}", re.DOTALL)
_OPERAND = re.compile(
    r"""\s*(?:
      (?P<string>"(?:\\.|[^"\\])*"|`[^`]*`)
    | (?P<number>-?\d+(?:\.\d+)?)
    | (?P<var>\$[A-Za-z0-9_]*)
    | (?P<field>(?:\.[A-Za-z_][A-Za-z0-9_]*)+|\.)
    | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
    | (?P<punct>:=|=|\||\(|\)|,)
    )""",
    re.VERBOSE,
)
_CHAIN = re.compile(r"(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


# -- syntax ---------------------------------------------------------------------------


@dataclass
class _Cmd:
    args: list[Any]
    """Operands: ("lit", v) ("field", names) ("var", name, names) ("fn", name)
    ("pipe", _Pipe, names)."""


@dataclass
class _Pipe:
    cmds: list[_Cmd]
    declare: list[str] = field(default_factory=list)
    assign: bool = False


@dataclass
class _Node:
    kind: str
    """text, action, if, range, with"""
    text: str = ""
    pipe: _Pipe | None = None
    body: list["_Node"] = field(default_factory=list)
    otherwise: list["_Node"] = field(default_factory=list)


def _split_names(chain: str) -> list[str]:
    return [name for name in chain.split(".") if name]


class _PipeParser:
    def __init__(self, text: str, where: str) -> None:
        self.tokens: list[tuple[str, str]] = []
        at = 0
        while at < len(text):
            if not text[at:].strip():
                break
            m = _OPERAND.match(text, at)
            if m is None or m.end() == at:
                raise EvalError(f"{where}: unexpected {text[at:].strip()[:20]!r}")
            kind = m.lastgroup or "punct"
            value = m.group(kind)
            self.tokens.append((kind, value))
            at = m.end()
            chain = _CHAIN.match(text, at) if kind == "var" or value == ")" else None
            if chain is not None:
                self.tokens.append(("chain", chain.group(0)))
                at = chain.end()
        self.pos = 0
        self.where = where

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ("end", "")

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        self.pos += 1
        return tok

    def pipeline(self, *, allow_declare: bool = True) -> _Pipe:
        pipe = _Pipe([])
        if allow_declare and self.peek()[0] == "var":
            save = self.pos
            names = [self.take()[1]]
            while self.peek() == ("punct", ","):
                self.take()
                kind, name = self.take()
                if kind != "var":
                    raise EvalError(f"{self.where}: expected a variable after ','")
                names.append(name)
            op = self.peek()
            if op in (("punct", ":="), ("punct", "=")):
                self.take()
                pipe.declare, pipe.assign = names, op[1] == "="
            else:
                self.pos = save
        while True:
            pipe.cmds.append(self.command())
            if self.peek() != ("punct", "|"):
                break
            self.take()
        return pipe

    def command(self) -> _Cmd:
        cmd = _Cmd([])
        while True:
            kind, value = self.peek()
            if kind == "end" or (kind == "punct" and value in ("|", ")")):
                break
            cmd.args.append(self.operand())
        if not cmd.args:
            raise EvalError(f"{self.where}: missing value in a pipeline")
        return cmd

    def operand(self) -> Any:
        kind, value = self.take()
        if kind == "string":
            return ("lit", _unquote(value))
        if kind == "number":
            return ("lit", float(value) if "." in value else int(value))
        if kind == "field":
            return ("field", _split_names(value))
        if kind == "var":
            names = _split_names(self.take()[1]) if self.peek()[0] == "chain" else []
            return ("var", value, names)
        if kind == "name":
            if value in ("true", "false", "nil"):
                return ("lit", {"true": True, "false": False, "nil": None}[value])
            if value not in FUNCTIONS:
                raise EvalError(f"{self.where}: function {value!r} is not supported")
            return ("fn", value)
        if (kind, value) == ("punct", "("):
            inner = self.pipeline(allow_declare=False)
            if self.take() != ("punct", ")"):
                raise EvalError(f"{self.where}: unclosed '('")
            names = _split_names(self.take()[1]) if self.peek()[0] == "chain" else []
            return ("pipe", inner, names)
        raise EvalError(f"{self.where}: unexpected {value!r}")


def _unquote(text: str) -> str:
    if text[0] == "`":
        return text[1:-1]
    try:
        value = json.loads(text)
    except ValueError:
        raise EvalError(f"bad string literal {text[:30]}") from None
    return str(value)


def _line(source: str, at: int) -> int:
    return source.count("\n", 0, at) + 1


class _TreeBuilder:
    """Turns the actions of a template into a tree: text, actions and their blocks."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.root: list[_Node] = []
        self.stack: list[tuple[_Node | None, list[_Node]]] = [(None, self.root)]

    def add(self, node: _Node) -> None:
        self.stack[-1][1].append(node)

    def action(self, inner: str, where: str) -> None:
        word, _, rest = inner.partition(" ")
        if word in ("if", "range", "with"):
            node = _Node(word, pipe=_PipeParser(rest, where).pipeline())
            self.add(node)
            self.stack.append((node, node.body))
        elif word == "else":
            self.otherwise(rest.strip(), where)
        elif word == "end":
            if len(self.stack) == 1:
                raise EvalError(f"{where}: 'end' without if, range or with")
            self.stack.pop()
            while self.stack[-1][0] is not None and self.stack[-1][0].kind == "chained":
                self.stack.pop()
        elif word in ("define", "template", "block", "break", "continue"):
            raise EvalError(f"{where}: {{{{{word}}}}} is not supported")
        else:
            self.add(_Node("action", pipe=_PipeParser(inner, where).pipeline()))

    def otherwise(self, rest: str, where: str) -> None:
        owner = self.stack[-1][0]
        if owner is None:
            raise EvalError(f"{where}: 'else' outside if, range or with")
        self.stack.pop()
        word, _, condition = rest.partition(" ")
        if word in ("if", "with"):
            node = _Node(word, pipe=_PipeParser(condition, where).pipeline())
            owner.otherwise.append(node)
            self.stack.append((_Node("chained"), owner.otherwise))
            self.stack.append((node, node.body))
        else:
            self.stack.append((owner, owner.otherwise))

    def finish(self) -> list[_Node]:
        if len(self.stack) > 1:
            open_block = self.stack[-1][0]
            raise EvalError(
                f"template {self.name}: unclosed {open_block.kind if open_block else ''}"
            )
        return self.root


def _parse(source: str, name: str) -> list[_Node]:
    tree = _TreeBuilder(name)
    at, trim_next = 0, False
    for m in _ACTION.finditer(source):
        text = source[at : m.start()]
        if trim_next:
            text = text.lstrip()
        if m.group(1):
            text = text.rstrip()
        if text:
            tree.add(_Node("text", text))
        at, trim_next = m.end(), bool(m.group(3))
        inner = m.group(2).strip()
        if not inner.startswith("/*"):
            tree.action(inner, f"template {name} line {_line(source, m.start())}")
    tail = source[at:].lstrip() if trim_next else source[at:]
    if tail:
        tree.add(_Node("text", tail))
    return tree.finish()


# -- rendering ------------------------------------------------------------------------


class _Render:
    def __init__(self, name: str, data: Any) -> None:
        self.name = name
        self.out: list[str] = []
        self.size = 0
        self.steps = 0
        self.scopes: list[dict[str, Any]] = [{"$": data}]

    def step(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise EvalError(f"template {self.name}: more than {MAX_STEPS} steps")

    def write(self, text: str) -> None:
        self.size += len(text)
        if self.size > MAX_OUTPUT:
            raise EvalError(f"template {self.name}: output over {MAX_OUTPUT} characters")
        self.out.append(text)

    def lookup(self, name: str) -> Any:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        raise EvalError(f"template {self.name}: undefined variable {name}")

    def fields(self, value: Any, names: list[str], args: list[Any]) -> Any:
        for i, name in enumerate(names):
            last = i == len(names) - 1
            if isinstance(value, Mapping):
                value = value.get(name)
                continue
            bound = method(value, name)
            if bound is None:
                if value is None:
                    raise EvalError(f"template {self.name}: nil pointer evaluating .{name}")
                raise EvalError(f"template {self.name}: can't evaluate field {name}")
            value = bound(*args) if last else bound()
            if last:
                return value
        if args:
            raise EvalError(f"template {self.name}: {show(value)[:30]} is not a function")
        return value

    def operand(self, arg: Any, dot: Any, extra: list[Any]) -> Any:
        kind = arg[0]
        if kind == "lit":
            return arg[1]
        if kind == "field":
            return self.fields(dot, arg[1], extra)
        if kind == "var":
            return self.fields(self.lookup(arg[1]), arg[2], extra)
        if kind == "pipe":
            return self.fields(self.pipe(arg[1], dot), arg[2], extra)
        raise EvalError(f"template {self.name}: function {arg[1]} used as a value")

    def command(self, cmd: _Cmd, dot: Any, piped: list[Any]) -> Any:
        first = cmd.args[0]
        if first[0] == "fn":
            args = [self.operand(a, dot, []) for a in cmd.args[1:]] + piped
            try:
                return FUNCTIONS[first[1]](*args)
            except EvalError:
                raise
            except (TypeError, ValueError, IndexError, KeyError, AttributeError) as e:
                raise EvalError(f"template {self.name}: {first[1]}: {e}") from None
        rest = [self.operand(a, dot, []) for a in cmd.args[1:]] + piped
        if first[0] == "lit" and rest:
            raise EvalError(f"template {self.name}: {show(first[1])} is not a function")
        return self.operand(first, dot, rest)

    def pipe(self, pipe: _Pipe, dot: Any) -> Any:
        self.step()
        value: Any = None
        for i, cmd in enumerate(pipe.cmds):
            value = self.command(cmd, dot, [value] if i else [])
        if pipe.declare:
            target = self.scopes[-1]
            if pipe.assign:
                target = next((s for s in reversed(self.scopes) if pipe.declare[0] in s), target)
            target[pipe.declare[-1]] = value
        return value

    def nodes(self, nodes: list[_Node], dot: Any) -> None:
        for node in nodes:
            self.step()
            if node.kind == "text":
                self.write(node.text)
            elif node.kind == "action":
                assert node.pipe is not None
                value = self.pipe(node.pipe, dot)
                if not node.pipe.declare:
                    self.write(show(value))
            elif node.kind == "range":
                self.range(node, dot)
            else:
                self.branch(node, dot)

    def branch(self, node: _Node, dot: Any) -> None:
        assert node.pipe is not None
        self.scopes.append({})
        try:
            value = self.pipe(node.pipe, dot)
            if truth(value):
                self.nodes(node.body, value if node.kind == "with" else dot)
            else:
                self.nodes(node.otherwise, dot)
        finally:
            self.scopes.pop()

    def range(self, node: _Node, dot: Any) -> None:
        assert node.pipe is not None
        names, node.pipe.declare = node.pipe.declare, []
        try:
            value = self.pipe(node.pipe, dot)
        finally:
            node.pipe.declare = names
        if isinstance(value, Mapping):
            items = [(k, value[k]) for k in sorted(value)]
        elif isinstance(value, list):
            items = list(enumerate(value))
        elif isinstance(value, int) and not isinstance(value, bool):
            items = [(i, i) for i in range(min(value, MAX_STEPS))]
        elif value is None:
            items = []
        else:
            raise EvalError(f"template {self.name}: range can't iterate over {show(value)[:30]}")
        if not items:
            self.nodes(node.otherwise, dot)
            return
        for key, item in items:
            scope: dict[str, Any] = {}
            if len(names) == 1:
                scope[names[0]] = item
            elif len(names) == 2:
                scope[names[0]], scope[names[1]] = key, item
            self.scopes.append(scope)
            try:
                self.nodes(node.body, item)
            finally:
                self.scopes.pop()


@dataclass(frozen=True, slots=True)
class Template:
    """A parsed template; `render(data)` writes it over `data` (`.` is `data`)."""

    name: str
    tree: tuple[_Node, ...]

    def render(self, data: Mapping[str, Any]) -> str:
        run = _Render(self.name, data)
        run.nodes(list(self.tree), data)
        return "".join(run.out)


def parse_template(source: str, name: str) -> Template:
    """Parse `source`; EvalError says what is wrong and on which line."""
    if len(source) > MAX_SOURCE:
        raise EvalError(f"template {name}: longer than {MAX_SOURCE} characters")
    return Template(name, tuple(_parse(source, name)))
