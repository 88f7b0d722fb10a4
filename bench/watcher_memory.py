"""Memory the watcher's index holds per object, against the same objects held decoded.

A local cluster runs in this process (controller delay 0). `--apps` apps of ten objects
each (the workload of `pipeline_scale`, tracked by annotation as a sync writes them,
client-side applied so they carry the last-applied annotation and managedFields) are
applied; the controllers add their ReplicaSets and Pods. Then every object of those kinds
is listed, and each is decoded from its own JSON (as a watch event is) into the
watcher's `ObjectIndex`.

Baselines, in the same run: the same objects held as plain decoded dicts by uid, decoded
by the standard library's `json` (what the index held at first) and by orjson (what it
held before it kept JSON). Each holder is built under `tracemalloc` in this process
(bytes allocated and still held), and again in a fresh process of its own (its RSS
growth: what the watcher's RSS pays); and, RSS only, the index built from a list, as a
watcher starts, decoded a page at a time (as now, and in pages of the other lists' size)
and whole (as before). Figures per
object and per managed object, as multiples of the baselines; the allocation sites
holding most of the index; and the CPU of an upsert and of a read (an entry's object
decoded), against decoding the event.
"""

import argparse
import asyncio
import gc
import json
import math
import multiprocessing
import sys
import tempfile
import tracemalloc
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import orjson
import psutil

from app import jsonio, log_setup
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
WATCH_PAGE = ClusterSettings().watch_list_page_size
LIST_PAGE = ClusterSettings().list_page_size
ROUNDS = 5
"""Rounds of each CPU figure, alternating."""
ROOT = str(Path(__file__).resolve().parents[1])
"""The checkout, left off the allocation sites' file names."""
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


Holder = Callable[[list[bytes]], object]


def _index(documents: list[bytes]) -> ObjectIndex:
    checks = HealthCustomizations()
    index = ObjectIndex(TrackingMethod.ANNOTATION, lambda: checks)
    for document in documents:
        index.upsert(jsonio.loads(document))
    assert len(index) == len(documents)
    return index


def _paged(page: int) -> Holder:
    """The index built from a list decoded `page` objects at a time (a watcher's start)."""

    def hold(documents: list[bytes]) -> ObjectIndex:
        checks = HealthCustomizations()
        index = ObjectIndex(TrackingMethod.ANNOTATION, lambda: checks)
        for start in range(0, len(documents), page):
            items = [jsonio.loads(d) for d in documents[start : start + page]]
            for obj in items:
                index.upsert(obj)
            del items
        return index

    return hold


def _dicts(loads: Callable[[bytes], Any]) -> Holder:
    def hold(documents: list[bytes]) -> dict[str, Any]:
        held = {}
        for document in documents:
            obj = loads(document)
            held[obj["metadata"]["uid"]] = obj
        return held

    return hold


HOLDERS: dict[str, Holder] = {
    "json dicts (baseline)": _dicts(json.loads),
    "orjson dicts (baseline)": _dicts(orjson.loads),
    "the index": _index,
}
BASELINES = ("json dicts (baseline)", "orjson dicts (baseline)")
LISTED: dict[str, Holder] = {
    f"the index, listed in pages of {WATCH_PAGE}": _paged(WATCH_PAGE),
    f"the index, listed in pages of {LIST_PAGE}": _paged(LIST_PAGE),
    "the index, listed whole": _paged(sys.maxsize),
}
"""A watcher's start: its first list decoded a page at a time, as the watch hands it over
(`ClusterSettings.watch_list_page_size`; and the size of other lists), and all at once,
as it did before; RSS only (all hold the same objects, but memory freed in small pieces
mostly stays with the process)."""


def traced(documents: list[bytes], holder: Holder) -> tuple[int, list[tracemalloc.Statistic]]:
    """Bytes a holder of these objects keeps allocated, and its largest allocation sites."""
    gc.collect()
    tracemalloc.start()
    held = holder(documents)
    gc.collect()
    snapshot = tracemalloc.take_snapshot()
    tracemalloc.stop()
    del held
    return sum(s.size for s in snapshot.statistics("filename")), snapshot.statistics("lineno")


def rss_growth(path: str, name: str) -> int:
    """RSS a holder adds to a process that has read the documents (run in a fresh process)."""
    documents = Path(path).read_bytes().splitlines()
    gc.collect()
    before = psutil.Process().memory_info().rss
    held = (HOLDERS | LISTED)[name](documents)
    gc.collect()
    grown = psutil.Process().memory_info().rss - before
    del held
    return grown


def _each_in_a_fresh_process(documents: list[bytes]) -> dict[str, int]:
    with tempfile.NamedTemporaryFile(prefix="sluice-bench-") as file:
        file.write(b"\n".join(documents))
        file.flush()
        grown = {}
        for name in HOLDERS | LISTED:
            context = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(1, mp_context=context) as pool:
                grown[name] = pool.submit(rss_growth, file.name, name).result()
    return grown


def _site(stat: tracemalloc.Statistic, held: int) -> Line:
    frame = stat.traceback[0]
    where = frame.filename.split("/site-packages/")[-1].removeprefix(f"{ROOT}/")
    return Line(f"  {where}:{frame.lineno}", f"{stat.size / held:.0%} ({stat.size >> 10} KiB)")


def _cpu(documents: list[bytes]) -> list[Line]:
    """An upsert and a read per object, against decoding the event (paid in any case).

    The three alternate, round after round, and each keeps its best round, so a change of
    the machine's pace during the run moves all three alike.
    """
    sample = documents[: min(len(documents), 200)]
    index = _index(sample)
    entries = [index.get(str(jsonio.loads(d)["metadata"]["uid"])) for d in sample]
    decoded = [jsonio.loads(d) for d in sample]
    calls: dict[str, Callable[[], object]] = {
        "decode": lambda: [jsonio.loads(d) for d in sample],
        "upsert": lambda: [index.upsert(o) for o in decoded],
        "read": lambda: [e.obj for e in entries if e is not None],
    }
    best = dict.fromkeys(calls, math.inf)
    for _ in range(ROUNDS):
        for name, call in calls.items():
            best[name] = min(best[name], cpu_per_call(call, rounds=1) / len(sample))
    decode, upsert, read = best["decode"], best["upsert"], best["read"]
    return [
        Line("CPU per object (ratios to decoding the event)", ""),
        Line("  decoding the event (baseline)", f"{decode * 1e6:.1f} µs"),
        Line("  upsert into the index", f"{upsert * 1e6:.1f} µs ({ratio(upsert, decode)})"),
        Line("  reading an entry's object", f"{read * 1e6:.1f} µs ({ratio(read, decode)})"),
    ]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench watcher_memory", description=__doc__)
    parser.add_argument("--apps", type=positive, default=300, help="apps of ten objects")
    args = parser.parse_args(argv)
    log_setup.configure(level="warning")
    documents, managed = asyncio.run(collect(args.apps))
    count = len(documents)
    sent = sum(len(d) for d in documents)
    decoded = [json.loads(d) for d in documents]
    managed_fields = sum(len(json.dumps(o["metadata"].get("managedFields", []))) for o in decoded)
    last_applied = sum(
        len((o["metadata"].get("annotations") or {}).get(LAST_APPLIED, "")) for o in decoded
    )
    del decoded
    held = {name: traced(documents, holder) for name, holder in HOLDERS.items()}
    grown = _each_in_a_fresh_process(documents)
    index, sites = held["the index"]

    def versus(figures: dict[str, int], name: str) -> str:
        ratios = ", ".join(f"{ratio(figures[name], figures[b])} {b[:-11]}" for b in BASELINES)
        return (
            f"{figures[name] / count / 1024:.2f} KiB per object, "
            f"{figures[name] / managed / 1024:.2f} per managed object"
            + ("" if name in BASELINES else f" = {ratios}")
        )

    allocated = {name: size for name, (size, _) in held.items()}
    report(
        f"watcher_memory: the watcher's index of {count} objects "
        f"({managed} managed by {args.apps} apps, the rest their ReplicaSets and Pods)",
        "local cluster in this process, controller delay 0; objects decoded from their JSON",
        [
            Line(
                "objects' JSON",
                f"{sent / count / 1024:.2f} KiB per object, of which managedFields "
                f"{managed_fields / sent:.0%}, the last-applied annotation "
                f"{last_applied / sent:.0%}",
            ),
            Line("held (tracemalloc, this process)", ""),
            *(Line(f"  {name}", versus(allocated, name)) for name in HOLDERS),
            Line("RSS growth (a fresh process each)", ""),
            *(Line(f"  {name}", versus(grown, name)) for name in HOLDERS | LISTED),
            Line("the index over its objects' JSON", f"{index / sent:.2f}x"),
            Line("the index's largest allocation sites", ""),
            *(_site(stat, index) for stat in sites[:TOP]),
            *_cpu(documents),
        ],
        "the same objects held as decoded dicts by uid (json, orjson), same run",
        ["python", "-m", "bench", "watcher_memory", *argv],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
