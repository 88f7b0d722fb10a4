"""What a kustomization may point at: only directories and files inside the checkout.

Kustomize's default load restrictor (RootOnly) keeps the *files* a kustomization reads
(patches, generator inputs) under its own directory, but a resource, base, component,
generator, transformer or validator that is a *directory* starts a new root wherever it
is, so `resources: [../../outside]` would read beyond the repository (docs/threats.md, path
traversal). Before the build, every kustomization reachable from the app's one is read
and each local entry of those lists is resolved (symlinks included) and required to stay
inside the checkout root; directories are followed in turn.

Remote entries (`https://…`, `git@…`, `github.com/org/repo//path?ref=…`) are refused:
kustomize would fetch them itself, with no credentials, no protocol allow-list and no
size limit. Vendor them into the repository, or use a multi-source Application.
"""

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.engine.manifests.bounded_yaml import YamlDocumentError, iter_yaml_documents
from app.engine.manifests.limits import ManifestLimits
from app.repo.errors import RenderError
from app.repo.sourcetype import KUSTOMIZATION_FILES

REFERENCE_LISTS = ("resources", "bases", "components", "generators", "transformers", "validators")
"""Kustomization fields whose entries may name other directories (or remote targets)."""
MAX_KUSTOMIZATIONS = 500
"""Most kustomizations one build may reach; more is refused rather than walked."""
MAX_KUSTOMIZATION_BYTES = 1024 * 1024
"""Largest kustomization file read."""

_REMOTE_HOST = re.compile(r"^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+(:[0-9]+)?/")
_LIMITS = ManifestLimits(max_total_bytes=MAX_KUSTOMIZATION_BYTES, max_documents=1)


@dataclass(frozen=True, slots=True)
class Kustomization:
    """One kustomization file: where it is and what it says."""

    path: Path
    content: dict[str, Any]


def find_kustomization(directory: Path) -> Path | None:
    """The kustomization file of `directory`, by kustomize's order of names, or None."""
    for name in KUSTOMIZATION_FILES:
        candidate = directory / name
        if candidate.is_file():
            return candidate
    return None


def read_kustomization(path: Path, *, shown: str) -> Kustomization:
    """Parse a kustomization file (bounded YAML, one mapping); `shown` names it in errors."""
    data = path.read_bytes()
    if len(data) > MAX_KUSTOMIZATION_BYTES:
        raise RenderError(f"{shown} is larger than {MAX_KUSTOMIZATION_BYTES} bytes")
    try:
        documents = [doc for _, _, doc in iter_yaml_documents(data.decode("utf-8"), _LIMITS)]
    except UnicodeDecodeError:
        raise RenderError(f"{shown} is not UTF-8 text") from None
    except YamlDocumentError as e:
        raise RenderError(f"{shown} line {e.line}: {e.problem}") from None
    content = documents[0] if documents else {}
    if not isinstance(content, dict):
        raise RenderError(f"{shown} is not a YAML mapping")
    return Kustomization(path, content)


def is_remote(entry: str) -> bool:
    """True for what kustomize would fetch over the network rather than read locally."""
    return "://" in entry or entry.startswith("git@") or bool(_REMOTE_HOST.match(entry))


def check_references(root: Path, start: Path, *, field: str) -> int:
    """Refuse any reference, from `start`'s kustomization on, that leaves `root` or is
    remote. Returns how many kustomizations were read. RenderError names the file."""
    real_root = os.path.realpath(root)
    pending = [Path(os.path.realpath(start))]
    seen: set[Path] = set()
    while pending:
        directory = pending.pop()
        if directory in seen:
            continue
        seen.add(directory)
        if len(seen) > MAX_KUSTOMIZATIONS:
            raise RenderError(
                f"{field}: the kustomization reaches more than {MAX_KUSTOMIZATIONS} others"
            )
        path = find_kustomization(directory)
        if path is None:
            continue
        shown = os.path.relpath(path, real_root)
        kustomization = read_kustomization(path, shown=f"{field}: {shown}")
        for list_name in REFERENCE_LISTS:
            entries = kustomization.content.get(list_name) or []
            if not isinstance(entries, list):
                raise RenderError(f"{field}: {shown}: {list_name} must be a list")
            for entry in entries:
                if not isinstance(entry, str):
                    continue
                target = _local_target(directory, entry, real_root, f"{field}: {shown}", list_name)
                if target is not None and os.path.isdir(target):
                    pending.append(Path(target))
    return len(seen)


def _local_target(directory: Path, entry: str, root: str, where: str, list_name: str) -> str | None:
    if is_remote(entry) and not os.path.exists(directory / entry):
        raise RenderError(
            f"{where} lists the remote {list_name} entry {entry!r}; Sluice does not let "
            "kustomize fetch from the network: vendor it into the repository or add it as "
            "another source of the Application"
        )
    real = os.path.realpath(directory / entry)
    if os.path.commonpath([real, root]) != root:
        raise RenderError(
            f"{where} lists {entry!r} in {list_name}, which leaves the repository; a "
            "kustomization may only refer to files and directories of its own repository"
        )
    return real if os.path.exists(real) else None
