"""Server-side applies per second: Sluice's cluster client (16 concurrent) vs kubectl.

The same 10-resource manifest set (Namespace, ServiceAccount, ConfigMap, Secret, Service,
Deployment, Role, RoleBinding, Ingress, PodDisruptionBudget) is applied with server-side
apply, each set into its own namespace, against a local cluster running in its own
process with controller delay 0:

- Sluice: `app.cluster.Cluster.apply` with 16 requests in flight; objects per second over
  all sets (namespaces first, then the other nine objects of every set).
- Baseline: `kubectl apply --server-side -f set.yaml`, one invocation per set, after one
  warm-up invocation that fills kubectl's discovery cache; objects per second of each
  invocation (10 / wall time), median over the runs.
"""

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from app import log_setup
from app.cluster import Cluster, ClusterSettings, load_kubeconfig
from bench.support import local_cluster

SET_SIZE = 10


def manifest_set(namespace: str) -> list[dict[str, Any]]:
    """The 10 objects of one set, the Namespace first."""
    labels = {"app": "web"}
    meta = {"namespace": namespace, "labels": labels}
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "web", **meta}},
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "web-config", **meta},
            "data": {"LOG_LEVEL": "info", "FEATURES": "a,b,c"},
        },
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "web-secret", **meta},
            "type": "Opaque",
            "stringData": {"password": "not-a-real-password"},
        },
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "web", **meta},
            "spec": {"selector": labels, "ports": [{"port": 80, "targetPort": 8080}]},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", **meta},
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": labels},
                "template": {
                    "metadata": {"labels": labels},
                    "spec": {
                        "serviceAccountName": "web",
                        "containers": [
                            {
                                "name": "web",
                                "image": "nginx:1.27",
                                "ports": [{"containerPort": 8080}],
                                "envFrom": [{"configMapRef": {"name": "web-config"}}],
                            }
                        ],
                    },
                },
            },
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": "web", **meta},
            "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "web", **meta},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "web"},
            "subjects": [{"kind": "ServiceAccount", "name": "web", "namespace": namespace}],
        },
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "Ingress",
            "metadata": {"name": "web", **meta},
            "spec": {
                "rules": [
                    {
                        "host": f"{namespace}.example.com",
                        "http": {
                            "paths": [
                                {
                                    "path": "/",
                                    "pathType": "Prefix",
                                    "backend": {"service": {"name": "web", "port": {"number": 80}}},
                                }
                            ]
                        },
                    }
                ]
            },
        },
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "web", **meta},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": labels}},
        },
    ]


async def apply_all(cluster: Cluster, objects: list[dict[str, Any]], concurrency: int) -> None:
    """Server-side apply every object, `concurrency` at a time."""
    pending = iter(objects)

    async def worker() -> None:
        for obj in pending:
            await cluster.apply(obj)

    await asyncio.gather(*(worker() for _ in range(concurrency)))


async def sluice_rate(kubeconfig: Path, sets: int, concurrency: int) -> tuple[int, float]:
    """(objects applied, seconds) for `sets` manifest sets with `concurrency` in flight."""
    config = await load_kubeconfig(kubeconfig)
    async with Cluster(config, ClusterSettings(max_in_flight=concurrency)) as cluster:
        await cluster.resource_types()
        batches = [manifest_set(f"sluice-{i}") for i in range(sets)]
        phases = [[b[0] for b in batches], [obj for b in batches for obj in b[1:]]]
        started = time.perf_counter()
        for phase in phases:
            await apply_all(cluster, phase, concurrency)
        elapsed = time.perf_counter() - started
    return sum(len(p) for p in phases), elapsed


def kubectl_seconds(kubeconfig: Path, runs: int, workdir: Path) -> list[float]:
    """Wall time of each `kubectl apply --server-side` of one set (after one warm-up)."""
    env = {**os.environ, "KUBECONFIG": str(kubeconfig), "HOME": str(workdir)}
    times = []
    for i in range(runs + 1):
        manifest = workdir / f"set-{i}.yaml"
        manifest.write_text(yaml.safe_dump_all(manifest_set(f"kubectl-{i}")))
        started = time.perf_counter()
        subprocess.run(
            ["kubectl", "apply", "--server-side", "-f", str(manifest)],
            env=env,
            check=True,
            capture_output=True,
        )
        if i:
            times.append(time.perf_counter() - started)
    return times


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench cluster_apply", description=__doc__)
    parser.add_argument("--sets", type=int, default=200, help="manifest sets Sluice applies")
    parser.add_argument("--concurrency", type=int, default=16, help="Sluice requests in flight")
    parser.add_argument("--kubectl-runs", type=int, default=5, help="timed kubectl invocations")
    args = parser.parse_args(argv)
    log_setup.configure(level="warning")
    if shutil.which("kubectl") is None:
        print("kubectl is not on PATH: the baseline needs it", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="sluice-bench-") as tmp:
        workdir = Path(tmp)
        kubeconfig = workdir / "kubeconfig"
        try:
            with local_cluster.running(kubeconfig):
                objects, seconds = asyncio.run(sluice_rate(kubeconfig, args.sets, args.concurrency))
                times = kubectl_seconds(kubeconfig, args.kubectl_runs, workdir)
        except RuntimeError as e:
            print(e, file=sys.stderr)
            return 1
    sluice = objects / seconds
    median = statistics.median(times)
    kubectl = SET_SIZE / median
    kinds = ", ".join(o["kind"] for o in manifest_set("x"))
    print(f"cluster_apply: server-side apply throughput, {SET_SIZE}-resource set ({kinds})")
    print("local cluster in its own process, controller delay 0")
    print(
        f"  sluice app.cluster, {args.concurrency} concurrent : {sluice:8.1f} objects/s"
        f"  ({objects} applies in {seconds:.2f} s)"
    )
    print(
        f"  kubectl apply --server-side      : {kubectl:8.1f} objects/s"
        f"  (median of {len(times)} runs x {SET_SIZE} objects, {median:.3f} s per run,"
        f" range {min(times):.3f}-{max(times):.3f} s)"
    )
    print(f"  ratio                            : {sluice / kubectl:8.1f}x")
    flags = (
        f"--sets {args.sets} --concurrency {args.concurrency} --kubectl-runs {args.kubectl_runs}"
    )
    print(f"command: python -m bench cluster_apply {flags}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
