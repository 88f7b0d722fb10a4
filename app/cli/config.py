"""The CLI's config file: the servers it logged in to (`sluice login`), one of them current.

    current-context: prod
    contexts:
      - name: prod
        server: https://sluice.example.com
        token: eyJhbGciOi...

It lives at `$SLUICE_CONFIG`, else `~/.config/sluice/config`, written with mode 0600 (it
holds tokens) through a temporary file renamed over it, so a reader never sees half of
it. What a command talks to comes, in order, from `--server`/`--token`, from
`SLUICE_SERVER`/`SLUICE_TOKEN`, from the current context, and last from the local
`sluice up` (`http://127.0.0.1:8080` and its `.sluice/api-token`).
"""

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

MAX_BYTES = 1 << 20
ENV_CONFIG = "SLUICE_CONFIG"


class ConfigError(ValueError):
    """The config file cannot be read or written; the text names the file."""


@dataclass
class Context:
    name: str
    server: str
    token: str = field(default="", repr=False)


@dataclass
class Config:
    path: Path
    current: str = ""
    contexts: list[Context] = field(default_factory=list)

    def get(self, name: str) -> Context | None:
        return next((c for c in self.contexts if c.name == name), None)

    @property
    def current_context(self) -> Context | None:
        return self.get(self.current) if self.current else None

    def put(self, context: Context) -> None:
        self.contexts = [c for c in self.contexts if c.name != context.name] + [context]
        self.current = context.name

    def remove(self, name: str) -> bool:
        kept = [c for c in self.contexts if c.name != name]
        found = len(kept) != len(self.contexts)
        self.contexts = kept
        if self.current == name:
            self.current = kept[0].name if kept else ""
        return found


def config_path() -> Path:
    explicit = os.environ.get(ENV_CONFIG, "").strip()
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME", "").strip() or str(Path.home() / ".config")
    return Path(base) / "sluice" / "config"


def _context(doc: Any, where: str) -> Context:
    if not isinstance(doc, dict) or not all(
        isinstance(doc.get(k), str) for k in ("name", "server")
    ):
        raise ConfigError(f"{where}: a context needs a name and a server")
    token = doc.get("token", "")
    return Context(doc["name"], doc["server"], token if isinstance(token, str) else "")


def load() -> Config:
    path = config_path()
    try:
        with path.open("rb") as f:
            data = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return Config(path)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read it ({e.strerror})") from None
    if len(data) > MAX_BYTES:
        raise ConfigError(f"{path}: larger than {MAX_BYTES} bytes")
    try:
        doc = yaml.safe_load(data) or {}
    except yaml.YAMLError:
        raise ConfigError(f"{path}: not YAML; fix or remove it") from None
    if not isinstance(doc, dict):
        raise ConfigError(f"{path}: expected a mapping with current-context and contexts")
    contexts = [
        _context(item, f"{path}: contexts[{i}]") for i, item in enumerate(doc.get("contexts") or [])
    ]
    current = doc.get("current-context", "")
    return Config(path, current if isinstance(current, str) else "", contexts)


def save(config: Config) -> None:
    doc = {
        "current-context": config.current,
        "contexts": [
            {"name": c.name, "server": c.server, "token": c.token} for c in config.contexts
        ],
    }
    path = config.path
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".config-")
        with os.fdopen(fd, "w") as f:
            yaml.safe_dump(doc, f, sort_keys=False)
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except OSError as e:
        raise ConfigError(f"{path}: cannot write it ({e.strerror})") from None
