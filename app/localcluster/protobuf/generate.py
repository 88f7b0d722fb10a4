"""Regenerate `schema.json` from checkouts of k8s.io/api and k8s.io/apimachinery.

    python -m app.localcluster.protobuf.generate API_DIR APIMACHINERY_DIR TAG > schema.json

Reads each package's `generated.proto` (messages, field numbers, types) and its Go
sources (the `json` tag: the field's JSON name, `omitempty`/`omitzero`, `inline`, and
whether the Go field is a pointer), keeps the messages reachable from the kinds the local
cluster decodes (`ROOTS`: every built-in kind it serves, plus autoscaling/v1 Scale and
events.k8s.io/v1 Event), and prints them as the decoder's table. Only field numbers,
names and types are taken: the wire contract, not the sources' text.
"""

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.localcluster.builtin import BUILTIN_TYPES
from app.localcluster.protobuf.schema import SPECIAL

EXTRA_ROOTS = (("autoscaling", "v1", "Scale"), ("events.k8s.io", "v1", "Event"))
SKIPPED_GROUPS = ("apiextensions.k8s.io",)
"""Groups whose types live elsewhere (apiextensions-apiserver): not decoded from protobuf."""
_PREFIXES = ("k8s.io.api.", "k8s.io.apimachinery.pkg.")

_PACKAGE = re.compile(r"^package ([\w.]+);", re.MULTILINE)
_MESSAGE = re.compile(r"^message (\w+) \{\n(.*?)^\}", re.MULTILINE | re.DOTALL)
_FIELD = re.compile(r"^\s*(optional|repeated) ([\w.]+) (\w+) = (\d+);", re.MULTILINE)
_MAP = re.compile(r"^\s*map<(\w+), ([\w.]+)> (\w+) = (\d+);", re.MULTILINE)
_STRUCT = re.compile(r"^type (\w+) struct \{\n(.*?)^\}", re.MULTILINE | re.DOTALL)
_GO_FIELD = re.compile(r"^\t(?:(\w+)\s+)?(\*?[\w.\[\]*]+)\s+`([^`]*)`", re.MULTILINE)
_TAG = re.compile(r'(\w+):"([^"]*)"')
_GROUP_NAME = re.compile(r'^const GroupName = "([^"]*)"', re.MULTILINE)


def short(name: str) -> str:
    """`k8s.io.api.core.v1.Pod` -> `core.v1.Pod`; `k8s.io.apimachinery.pkg.x` -> `x`."""
    name = name.lstrip(".")
    for prefix in _PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


@dataclass
class GoField:
    json_name: str
    pointer: bool
    omitempty: bool
    omitzero: bool
    inline: bool


def _git_show(repo: Path, tag: str, path: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "show", f"{tag}:{path}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def _git_files(repo: Path, tag: str) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "--name-only", tag],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return out.splitlines()


def _go_fields(sources: list[str]) -> dict[tuple[str, int], GoField]:
    """(struct, protobuf field number) -> what the Go field's tags say."""
    out: dict[tuple[str, int], GoField] = {}
    for source in sources:
        for struct in _STRUCT.finditer(source):
            for field in _GO_FIELD.finditer(struct.group(2)):
                tags = dict(_TAG.findall(field.group(3)))
                proto = tags.get("protobuf", "").split(",")
                if len(proto) < 2 or not proto[1].isdigit():
                    continue
                json_parts = tags.get("json", "").split(",")
                options = set(json_parts[1:])
                out[(struct.group(1), int(proto[1]))] = GoField(
                    json_name=json_parts[0],
                    pointer=field.group(2).startswith("*"),
                    omitempty="omitempty" in options,
                    omitzero="omitzero" in options,
                    inline="inline" in options,
                )
    return out


def _read_package(repo: Path, tag: str, directory: str, files: list[str]) -> tuple[str, Any]:
    proto = _git_show(repo, tag, f"{directory}/generated.proto")
    package = _PACKAGE.search(proto)
    if package is None:
        raise SystemExit(f"{directory}/generated.proto names no package")
    go_sources = [
        _git_show(repo, tag, f)
        for f in files
        if f.startswith(directory + "/")
        and f.count("/") == directory.count("/") + 1
        and f.endswith(".go")
        and not f.endswith(("_test.go", ".pb.go"))
    ]
    return package.group(1), (proto, _go_fields(go_sources), go_sources)


def _qualify(type_name: str, package: str) -> str:
    if type_name in ("string", "int32", "int64", "bool", "bytes", "double", "float"):
        return type_name
    if type_name.startswith("."):
        return short(type_name)
    return short(f"{package}.{type_name}")


def collect(repos: list[tuple[Path, str]]) -> tuple[dict[str, list[list[Any]]], dict[str, str]]:
    """Every message of every package (fields as table rows) and each API group's package."""
    messages: dict[str, list[list[Any]]] = {}
    groups: dict[str, str] = {}
    for repo, tag in repos:
        files = _git_files(repo, tag)
        for path in files:
            if not path.endswith("/generated.proto"):
                continue
            directory = path.rsplit("/", 1)[0]
            package, (proto, go, go_sources) = _read_package(repo, tag, directory, files)
            for source in go_sources:
                group = _GROUP_NAME.search(source)
                if group is not None:
                    groups[short(package)] = group.group(1)
            for message in _MESSAGE.finditer(proto):
                name, body = message.group(1), message.group(2)
                rows: list[tuple[int, list[Any]]] = []
                for field in _FIELD.finditer(body):
                    label, type_name, proto_name, number = field.groups()
                    kind = _qualify(type_name, package)
                    repeated = label == "repeated"
                    row = _row(go, name, int(number), proto_name, repeated=repeated, kind=kind)
                    rows.append((int(number), row))
                for field in _MAP.finditer(body):
                    key, value, proto_name, number = field.groups()
                    kind = f"map:{key}:{_qualify(value, package)}"
                    row = _row(go, name, int(number), proto_name, repeated=False, kind=kind)
                    rows.append((int(number), row))
                messages[short(f"{package}.{name}")] = [row for _, row in sorted(rows)]
    return messages, groups


def _row(
    go: dict[tuple[str, int], GoField],
    struct: str,
    number: int,
    proto_name: str,
    *,
    repeated: bool,
    kind: str,
) -> list[Any]:
    """A table row; `o` where the real server's JSON leaves the zero value out: a
    non-pointer scalar (or string-like message) with omitempty, a struct with omitzero."""
    tags = go.get((struct, number))
    flags = "r" if repeated else ""
    name = proto_name
    if tags is not None:
        name = tags.json_name or proto_name
        scalar = "." not in kind or kind in SPECIAL
        omitted = tags.omitempty or tags.omitzero if scalar else tags.omitzero
        flags += "o" if omitted and not tags.pointer and not repeated and ":" not in kind else ""
        flags += "i" if tags.inline else ""
    return [number, name, kind, flags]


def reachable(messages: dict[str, list[list[Any]]], roots: list[str]) -> dict[str, list[list[Any]]]:
    out: dict[str, list[list[Any]]] = {}
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in out or name in SPECIAL:
            continue
        if name not in messages:
            raise SystemExit(f"message {name} is referenced but not defined")
        out[name] = messages[name]
        for _, _, kind, _ in messages[name]:
            target = kind.rsplit(":", 1)[-1]
            if "." in target:
                todo.append(target)
    return dict(sorted(out.items()))


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)  # noqa: T201
        return 2
    api, machinery, tag = Path(argv[0]), Path(argv[1]), argv[2]
    messages, groups = collect([(api, tag), (machinery, tag)])
    by_group = {group: package for package, group in groups.items()}
    wanted = [(rt.group, rt.version, rt.kind) for rt in BUILTIN_TYPES]
    kinds: dict[str, str] = {}
    for group, version, kind in [*wanted, *EXTRA_ROOTS]:
        if group in SKIPPED_GROUPS:
            continue
        package = by_group.get(group or "", "core.v1").rsplit(".", 1)[0]
        message = f"{package}.{version}.{kind}"
        if message not in messages:
            raise SystemExit(f"no message {message} for {group}/{version} {kind}")
        kinds[f"{group}/{version}/{kind}" if group else f"{version}/{kind}"] = message
    schema = {
        "source": f"k8s.io/api and k8s.io/apimachinery {tag}",
        "kinds": dict(sorted(kinds.items())),
        "messages": reachable(messages, list(kinds.values())),
    }
    json.dump(schema, sys.stdout, separators=(",", ":"), sort_keys=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
