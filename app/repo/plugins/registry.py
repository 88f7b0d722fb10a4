"""The plugins a render host offers: one `plugin.yaml` per subdirectory of `plugins_dir`.

Argo CD runs each plugin as a sidecar whose `/home/argocd/cmp-server/config/plugin.yaml`
declares it. Sluice's render worker reads the same files from one directory it is
configured with (`SLUICE_PLUGINS_DIR`): `<plugins_dir>/<any name>/plugin.yaml`, the tools
the commands name on the worker's PATH. The directory is read at every plugin render (a
few small files), so adding or changing a plugin needs no restart. A file that does not
parse is not registered, and its problem is reported to any app that would have used a
plugin (never silently skipped); two files claiming one name keep the first in name order.
"""

from dataclasses import dataclass
from pathlib import Path

from app.repo.errors import RenderError
from app.repo.plugins.spec import MAX_PLUGIN_BYTES, PluginSpec, parse_plugin

PLUGIN_FILE = "plugin.yaml"
MAX_PLUGINS = 128


@dataclass(frozen=True, slots=True)
class Plugins:
    by_name: dict[str, PluginSpec]
    """Plugins by `full_name`, in directory name order."""
    problems: tuple[str, ...]
    """Why some plugin.yaml files were not registered."""

    def named(self, name: str) -> PluginSpec | None:
        return self.by_name.get(name)

    def discoverable(self) -> list[PluginSpec]:
        return [p for p in self.by_name.values() if p.discover.enabled]

    def described(self) -> str:
        names = ", ".join(self.by_name) or "none"
        problems = f"; not registered: {'; '.join(self.problems)}" if self.problems else ""
        return f"plugins on this render host: {names}{problems}"


def _read(path: Path, shown: str) -> PluginSpec:
    if path.stat().st_size > MAX_PLUGIN_BYTES:
        raise RenderError(f"{shown}: larger than {MAX_PLUGIN_BYTES} bytes")
    return parse_plugin(path.read_text(encoding="utf-8"), source=shown)


def load_plugins(directory: Path) -> Plugins:
    """Every plugin under `directory` (see the module docstring); blocking file I/O."""
    if not directory.is_dir():
        return Plugins({}, (f"{directory} is not a directory",))
    found: dict[str, PluginSpec] = {}
    problems: list[str] = []
    for sidecar in sorted(directory.iterdir())[:MAX_PLUGINS]:
        path = sidecar / PLUGIN_FILE
        if not path.is_file():
            continue
        shown = f"{sidecar.name}/{PLUGIN_FILE}"
        try:
            plugin = _read(path, shown)
        except (RenderError, OSError, UnicodeDecodeError) as e:
            problems.append(str(e) if isinstance(e, RenderError) else f"{shown}: unreadable")
            continue
        if plugin.full_name in found:
            problems.append(f"{shown}: {plugin.full_name!r} is already declared; not registered")
            continue
        found[plugin.full_name] = plugin
    return Plugins(found, tuple(problems))
