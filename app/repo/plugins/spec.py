"""A `plugin.yaml` (Argo CD's ConfigManagementPlugin) read and checked, field by field.

The fields are Argo CD's: `metadata.name`, `spec.version`, `spec.init` and `spec.generate`
(`command` plus `args`, run as one argv), `spec.discover` (`fileName`, `find.glob`,
`find.command`), `spec.parameters.static` and `.dynamic` (announced to users through the
API's app details, `parse_announced` reading the dynamic command's JSON; Argo CD does not
pass them to the commands either), `preserveFileMode` and `lockRepo`. A plugin
is selected by `<name>-<version>`, or `<name>` when it has no version, as Argo CD names a
sidecar's socket. `provideGitCreds` is refused: Sluice hands no credentials to plugins.
Every problem names the file and the field.
"""

import json
from dataclasses import dataclass
from typing import Any

import yaml

from app.repo.errors import RenderError

API_VERSION = "argoproj.io/v1alpha1"
KIND = "ConfigManagementPlugin"
MAX_PLUGIN_BYTES = 256 * 1024
MAX_ARGV = 256


@dataclass(frozen=True, slots=True)
class PluginCommand:
    argv: tuple[str, ...]
    """`command` followed by `args`, as Argo CD execs them (no shell unless named)."""


@dataclass(frozen=True, slots=True)
class Discover:
    file_name: str = ""
    """A glob relative to the app directory (Go's filepath.Glob: no `**`)."""
    glob: str = ""
    """A glob relative to the app directory where `**` matches any depth."""
    command: PluginCommand | None = None
    """Matches when it prints anything."""

    @property
    def enabled(self) -> bool:
        return bool(self.file_name or self.glob or self.command)


@dataclass(frozen=True, slots=True)
class StaticParameter:
    name: str
    title: str = ""
    tooltip: str = ""
    required: bool = False
    item_type: str = ""
    collection_type: str = ""
    string: str | None = None
    array: tuple[str, ...] | None = None
    map: dict[str, str] | None = None


@dataclass(frozen=True, slots=True)
class PluginSpec:
    name: str
    version: str
    generate: PluginCommand
    init: PluginCommand | None = None
    discover: Discover = Discover()
    static_parameters: tuple[StaticParameter, ...] = ()
    dynamic_parameters: PluginCommand | None = None
    preserve_file_mode: bool = False
    lock_repo: bool = False
    source: str = ""
    """The plugin.yaml it came from, for messages."""

    @property
    def full_name(self) -> str:
        """What `source.plugin.name` names it by: `<name>-<version>`, or `<name>`."""
        return f"{self.name}-{self.version}" if self.version else self.name


def _strings(raw: Any, where: str) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(a, str) for a in raw):
        raise RenderError(f"{where}: must be a list of strings")
    return tuple(raw)


def _command(raw: Any, where: str, *, required: bool = False) -> PluginCommand | None:
    if raw is None and not required:
        return None
    if not isinstance(raw, dict):
        raise RenderError(f"{where}: must be a mapping with command and args")
    argv = _strings(raw.get("command"), f"{where}.command") + _strings(
        raw.get("args"), f"{where}.args"
    )
    if not raw.get("command"):
        raise RenderError(f"{where}.command: must name the program to run")
    if len(argv) > MAX_ARGV or any("\0" in a for a in argv):
        raise RenderError(f"{where}: more than {MAX_ARGV} arguments, or a NUL byte")
    return PluginCommand(argv)


def _text(raw: dict[str, Any], key: str, where: str) -> str:
    value = raw.get(key, "")
    if not isinstance(value, str):
        raise RenderError(f"{where}.{key}: must be a string")
    return value


def _flag(raw: dict[str, Any], key: str, where: str) -> bool:
    value = raw.get(key, False)
    if not isinstance(value, bool):
        raise RenderError(f"{where}.{key}: must be true or false")
    return value


def _discover(raw: Any, where: str) -> Discover:
    if raw is None:
        return Discover()
    if not isinstance(raw, dict):
        raise RenderError(f"{where}: must be a mapping")
    find = raw.get("find") or {}
    if not isinstance(find, dict):
        raise RenderError(f"{where}.find: must be a mapping")
    command = None
    if find.get("command"):
        command = _command(
            {"command": find.get("command"), "args": find.get("args")}, f"{where}.find"
        )
    return Discover(_text(raw, "fileName", where), _text(find, "glob", f"{where}.find"), command)


def _announced(raw: Any, where: str) -> tuple[StaticParameter, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise RenderError(f"{where}: must be a list of parameters")
    found: list[StaticParameter] = []
    for i, entry in enumerate(raw):
        at = f"{where}[{i}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise RenderError(f"{at}: must be a mapping with a name")
        string = entry.get("string")
        if string is not None and not isinstance(string, str):
            raise RenderError(f"{at}.string: must be a string")
        array = entry.get("array")
        mapping = entry.get("map")
        if mapping is not None and not (
            isinstance(mapping, dict) and all(isinstance(v, str) for v in mapping.values())
        ):
            raise RenderError(f"{at}.map: must map names to strings")
        found.append(
            StaticParameter(
                entry["name"],
                _text(entry, "title", at),
                _text(entry, "tooltip", at),
                _flag(entry, "required", at),
                _text(entry, "itemType", at),
                _text(entry, "collectionType", at),
                string,
                None if array is None else _strings(array, f"{at}.array"),
                None if mapping is None else {str(k): v for k, v in mapping.items()},
            )
        )
    return tuple(found)


def parse_announced(output: bytes, *, where: str) -> tuple[StaticParameter, ...]:
    """A `parameters.dynamic` command's stdout: a JSON list of parameter announcements,
    each checked as a `parameters.static` entry is; RenderError naming `where` otherwise."""
    try:
        raw = json.loads(output)
    except (ValueError, UnicodeDecodeError) as e:
        raise RenderError(
            f"{where}: not JSON ({str(e)[:200]}); the command must print a JSON list of "
            "parameter announcements (`[]` for none)"
        ) from None
    return _announced(raw, where)


def parse_plugin(text: str, *, source: str) -> PluginSpec:
    """The plugin a `plugin.yaml`'s text declares; RenderError naming `source` and field."""
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise RenderError(f"{source}: not valid YAML ({str(e).splitlines()[0]})") from None
    if not isinstance(doc, dict):
        raise RenderError(f"{source}: must be a ConfigManagementPlugin mapping")
    if doc.get("apiVersion") != API_VERSION or doc.get("kind") != KIND:
        raise RenderError(f"{source}: must be apiVersion {API_VERSION}, kind {KIND}")
    metadata = doc.get("metadata") or {}
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if not isinstance(name, str) or not name.strip():
        raise RenderError(f"{source}: metadata.name: must name the plugin")
    spec = doc.get("spec")
    if not isinstance(spec, dict):
        raise RenderError(f"{source}: spec: must be a mapping")
    where = f"{source}: spec"
    if spec.get("provideGitCreds"):
        raise RenderError(
            f"{where}.provideGitCreds: Sluice passes no repository credentials to plugins; "
            "remove it (the plugin works on the checkout it is given)"
        )
    parameters = spec.get("parameters") or {}
    if not isinstance(parameters, dict):
        raise RenderError(f"{where}.parameters: must be a mapping")
    generate = _command(spec.get("generate"), f"{where}.generate", required=True)
    assert generate is not None
    return PluginSpec(
        name=name.strip(),
        version=str(spec.get("version") or "").strip(),
        generate=generate,
        init=_command(spec.get("init"), f"{where}.init"),
        discover=_discover(spec.get("discover"), f"{where}.discover"),
        static_parameters=_announced(parameters.get("static"), f"{where}.parameters.static"),
        dynamic_parameters=_command(parameters.get("dynamic"), f"{where}.parameters.dynamic"),
        preserve_file_mode=_flag(spec, "preserveFileMode", where),
        lock_repo=_flag(spec, "lockRepo", where),
        source=source,
    )
