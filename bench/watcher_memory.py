"""Memory the watcher's index holds per object, against the objects' own JSON, and where it goes.

A local cluster runs in this process (controller delay 0). `--apps` apps of ten objects
each (the workload of `pipeline_scale`, tracked by annotation as a sync writes them,
client-side applied so they carry the last-applied annotation and managedFields) are
applied; the controllers add their ReplicaSets and Pods. Then every object of those kinds
is listed, and each is decoded from its own JSON (as a watch event is) into the
watcher's `ObjectIndex`, under `tracemalloc`.

Figures: bytes the index holds per object and per managed object, as a multiple of the
baseline measured in the same run: the objects' compact JSON, the bytes the watcher was
sent for them. And the allocation sites holding most of it (tracemalloc, by line). The
same index is built with each JSON decoder (the standard library's, orjson, msgspec): the
bytes it holds and the CPU per object decoded, as multiples of the standard library's.
"""

import argparse
import asyncio
import gc
import json
import sys
import tempfile
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import orjson

from app import log_setup
from app.cluster import ApplyMode, Cluster, ClusterSettings, load_kubeconfig
from app.engine.health import HealthCustomizations
from app.engine.tracking import TrackingMethod, set_tracking
from app.localcluster.cluster import LocalCluster
from app.localcluster.settings import ControllerSettings, LocalClusterSettings
from app.model.resource import KubeObject
from bench.support.cpu import cpu_per_call, ratio
from bench.support.figures import Line, report
from bench.support.options import positive
from bench.support.workload import app_manifests, app_names
from workers.watcher.index import ObjectIndex

RESOURCES = 10
CONCURRENCY = 16
KINDS = (
    ("v1", "ConfigMap"),
    ("v1", "Secret"),
    ("v1", "ServiceAccount"),
    ("v1", "Service"),
    ("apps/v1", "Deployment"),
    ("apps/v1", "ReplicaSet"),
    ("v1", "Pod"),
    ("rbac.authorization.k8s.io/v1", "Role"),
    ("rbac.authorization.k8s.io/v1", "RoleBinding"),
    ("networking.k8s.io/v1", "Ingress"),
    ("policy/v1", "PodDisruptionBudget"),
)
TOP = 8
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


async def _deploy(cluster: Cluster, names: list[str]) -> int:
    """Apply every app's objects as a sync would; the number of managed objects."""
    objects = []
    for name in names:
        await cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
        for obj in app_manifests(name, RESOURCES, 0):
            method = TrackingMethod.ANNOTATION
            objects.append(set_tracking(obj, app=name, method=method, default_namespace=name))
    pending = iter(objects)

    async def worker() -> None:
        for obj in pending:
            await cluster.apply(obj, mode=ApplyMode.CLIENT_SIDE)

    await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
    return len(objects)


async def _listed(cluster: Cluster, pods: int) -> list[KubeObject]:
    """Every object of the workload's kinds, once the controllers made `pods` Pods."""
    for _ in range(600):
        listing = await cluster.list("v1", "Pod")
        if len(listing.items) >= pods:
            break
        await asyncio.sleep(0.1)
    found: list[KubeObject] = []
    for api_version, kind in KINDS:
        found += (await cluster.list(api_version, kind)).items
    return found


async def collect(apps: int) -> tuple[list[bytes], int]:
    """The JSON of every listed object, and the number of managed ones."""
    with tempfile.TemporaryDirectory(prefix="sluice-bench-") as tmp:
        kubeconfig = Path(tmp) / "kubeconfig"
        settings = LocalClusterSettings(
            kubeconfig_path=kubeconfig, controllers=ControllerSettings(delay_seconds=0)
        )
        async with LocalCluster(settings):
            config = await load_kubeconfig(kubeconfig)
            async with Cluster(config, ClusterSettings(max_in_flight=CONCURRENCY)) as cluster:
                names = list(app_names(apps))
                managed = await _deploy(cluster, names)
                deployments = sum(
                    1 for o in app_manifests("x", RESOURCES, 0) if o["kind"] == "Deployment"
                )
                listed = await _listed(cluster, apps * deployments * 2)
    return [json.dumps(o, separators=(",", ":")).encode() for o in listed], managed


Loads = Callable[[bytes], Any]
DECODERS: dict[str, Loads] = {
    "json": json.loads,
    "orjson": orjson.loads,
    "msgspec": msgspec.json.decode,
}


def measure(documents: list[bytes], loads: Loads) -> tuple[int, list[tracemalloc.Statistic]]:
    """Bytes an index of these objects holds, and its largest allocation sites."""
    checks = HealthCustomizations()
    gc.collect()
    tracemalloc.start()
    index = ObjectIndex(TrackingMethod.ANNOTATION, lambda: checks)
    for document in documents:
        index.upsert(loads(document))
    gc.collect()
    snapshot = tracemalloc.take_snapshot()
    held = sum(stat.size for stat in snapshot.statistics("filename"))
    tracemalloc.stop()
    assert len(index) == len(documents)
    return held, snapshot.statistics("lineno")[:TOP]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench watcher_memory", description=__doc__)
    parser.add_argument("--apps", type=positive, default=300, help="apps of ten objects")
    args = parser.parse_args(argv)
    log_setup.configure(level="warning")
    documents, managed = asyncio.run(collect(args.apps))
    held, top = measure(documents, json.loads)
    sent = sum(len(d) for d in documents)
    decoded = [json.loads(d) for d in documents]
    managed_fields = sum(len(json.dumps(o["metadata"].get("managedFields", []))) for o in decoded)
    last_applied = sum(
        len((o["metadata"].get("annotations") or {}).get(LAST_APPLIED, "")) for o in decoded
    )
    sample = documents[: min(len(documents), 200)]
    decode_cpu = {
        name: cpu_per_call(lambda loads=loads: [loads(d) for d in sample]) / len(sample)
        for name, loads in DECODERS.items()
    }
    decoders = []
    for name, loads in DECODERS.items():
        bytes_held = held if name == "json" else measure(documents, loads)[0]
        decoders.append(
            Line(
                f"  {name}",
                f"index {bytes_held / len(documents) / 1024:.2f} KiB per object "
                f"({ratio(bytes_held, held)}), decode {decode_cpu[name] * 1e6:.1f} µs per object "
                f"({ratio(decode_cpu[name], decode_cpu['json'])})",
            )
        )
    sites = [Line(f"  {s.traceback[0].filename.split('/site-packages/')[-1].split('/work/')[-1]}"
                  f":{s.traceback[0].lineno}", f"{s.size / held:.0%} ({s.size >> 10} KiB)")
             for s in top]  # fmt: skip
    report(
        f"watcher_memory: the watcher's index of {len(documents)} objects "
        f"({managed} managed by {args.apps} apps, the rest their ReplicaSets and Pods)",
        "local cluster in this process, controller delay 0; objects decoded from their JSON",
        [
            Line(
                "index per object",
                f"{held / len(documents) / 1024:.2f} KiB = {held / sent:.2f}x the objects' JSON",
            ),
            Line("index per managed object", f"{held / managed / 1024:.2f} KiB"),
            Line(
                "objects' JSON per object",
                f"{sent / len(documents) / 1024:.2f} KiB, of "
                f"which managedFields {managed_fields / sent:.0%}, the last-applied "
                f"annotation {last_applied / sent:.0%}",
            ),
            Line("largest allocation sites", ""),
            *sites,
            Line("by JSON decoder (ratios to json)", ""),
            *decoders,
        ],
        "the compact JSON of the same objects (what the watch sent), same run",
        ["python", "-m", "bench", "watcher_memory", *argv],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
