"""Snapshots: the cluster's objects in one JSON file, so `sluice up` keeps its cluster.

Saved atomically (write a temporary file, then rename), readable by its owner only
(Secrets are in it). Loading checks the whole file before touching the store: a file
that is not a snapshot, or holds an object of a type nobody serves, is refused with an
error naming the file and the problem, and the cluster starts from nothing rather than
from half a file. After a load, watches cannot resume from before the snapshot's
resourceVersion (410), as after an etcd restore.
"""

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.localcluster import crds
from app.localcluster.resources import GroupResource, Registry
from app.localcluster.store import Store
from app.model.resource import KubeObject

FORMAT = "sluice.localcluster.snapshot/v1"
MAX_SNAPSHOT_BYTES = 1024 * 1024 * 1024


class SnapshotError(Exception):
    """A snapshot file that cannot be loaded: which file, and what is wrong with it."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(
            f"snapshot {path}: {problem}; move the file away to start an empty cluster"
        )


@dataclass(frozen=True, slots=True)
class Snapshot:
    revision: int
    objects: list[tuple[GroupResource, KubeObject]]


def capture(store: Store) -> Snapshot:
    """The store's objects now (references: stored objects are never mutated)."""
    objects = [(gr, obj) for gr in store.resources() for obj in store.items(gr)]
    return Snapshot(store.revision, objects)


def write(path: Path, snapshot: Snapshot) -> None:
    """Write `snapshot` to `path` atomically, mode 0600. Safe to run in a worker thread."""
    payload = {
        "format": FORMAT,
        "resourceVersion": snapshot.revision,
        "objects": [
            {"group": gr.group, "resource": gr.resource, "object": obj}
            for gr, obj in snapshot.objects
        ],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(payload, f, separators=(",", ":"))
    os.replace(tmp, path)


def _well_formed(item: dict[str, Any], obj: dict[str, Any]) -> bool:
    meta = obj.get("metadata")
    return (
        isinstance(meta, dict)
        and isinstance(item.get("resource"), str)
        and isinstance(item.get("group"), str)
        and bool(meta.get("name"))
        and str(meta.get("resourceVersion", "")).isdigit()
    )


def _entries(path: Path) -> tuple[int, list[tuple[GroupResource, KubeObject]]]:
    if path.stat().st_size > MAX_SNAPSHOT_BYTES:
        raise SnapshotError(path, f"larger than {MAX_SNAPSHOT_BYTES} bytes")
    try:
        data: Any = json.loads(path.read_bytes())
    except (OSError, ValueError) as e:
        raise SnapshotError(path, f"cannot be read as JSON ({e})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SnapshotError(path, f"is not a local cluster snapshot (expected format {FORMAT})")
    revision = data.get("resourceVersion")
    items = data.get("objects")
    if not isinstance(revision, int) or not isinstance(items, list):
        raise SnapshotError(path, "needs an integer resourceVersion and a list of objects")
    out: list[tuple[GroupResource, KubeObject]] = []
    for i, item in enumerate(items):
        obj = item.get("object") if isinstance(item, dict) else None
        if not isinstance(obj, dict) or not _well_formed(item, obj):
            raise SnapshotError(
                path,
                f"objects[{i}] needs group, resource and an object with metadata.name "
                "and a numeric metadata.resourceVersion",
            )
        out.append((GroupResource(item["group"], item["resource"]), obj))
    return revision, out


def load(path: Path, store: Store, registry: Registry) -> int:
    """Load `path` into an empty store; returns the restored resourceVersion."""
    revision, entries = _entries(path)
    defined = [obj for gr, obj in entries if gr == crds.CRDS]
    served = {rt.group_resource for rt in registry.all()}
    served.update(rt.group_resource for crd in defined for rt in crds.served_types(crd))
    for gr, obj in entries:
        if gr not in served:
            raise SnapshotError(
                path, f"holds {gr} {obj['metadata']['name']!r}, a type this cluster does not serve"
            )
    for crd in defined:
        crds.serve(registry, crd, str(crd["metadata"]["name"]))
    for gr, obj in entries:
        store.load(gr, obj)
    highest = max((int(obj["metadata"]["resourceVersion"]) for _, obj in entries), default=0)
    store.revision = max(revision, highest)
    store.log.restart_at(store.revision)
    return store.revision
