"""One app of 200 resources, nothing to Synced + Healthy, against kubectl apply + kubectl wait.

The fleet of `pipeline_scale` (every part in its own process, one app of `--resources`
objects): the clock runs from the Application's creation to the status store showing it
Synced + Healthy, so it holds Sluice's whole way there: render, comparison, automated
sync (namespace, dry run of every object, apply), health.

Baseline, on the same local cluster in the same run: the same objects written to one file
with their Namespace first, `kubectl apply --server-side -f FILE` then `kubectl wait
--for=condition=Available deployment --all` in that namespace (after one warm-up
invocation that fills kubectl's discovery cache). The figure is Sluice's time as a
multiple of kubectl's.
"""

import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from bench.support.figures import Line, report
from bench.support.fleet import Fleet, FleetOptions
from bench.support.fleet_command import difference, run_fleet, verbs
from bench.support.workload import app_manifests

RESOURCES = 200
TARGET_RATIO = 1.0
WAIT_TIMEOUT = "300s"


@dataclass(frozen=True, slots=True)
class Compared:
    options: FleetOptions
    sluice: float
    kubectl: float
    kubectl_apply: float
    requests: dict[str, int]
    """Requests the local cluster served during Sluice's sync, by verb."""


def _kubectl(kubeconfig: Path, home: Path, *args: str) -> None:
    env = {**os.environ, "KUBECONFIG": str(kubeconfig), "HOME": str(home)}
    subprocess.run(["kubectl", *args], env=env, check=True, capture_output=True)


def _manifest(path: Path, namespace: str, resources: int) -> Path:
    docs = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}]
    docs += app_manifests(namespace, resources, 0)
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return path


def kubectl_seconds(kubeconfig: Path, workdir: Path, resources: int) -> tuple[float, float]:
    """(apply + wait, apply alone) seconds for one set, after a warm-up of one object."""
    warm = _manifest(workdir / "warm.yaml", "kubectl-warm", 1)
    _kubectl(kubeconfig, workdir, "apply", "--server-side", "-f", str(warm))
    manifest = _manifest(workdir / "set.yaml", "kubectl-set", resources)
    started = time.perf_counter()
    _kubectl(kubeconfig, workdir, "apply", "--server-side", "-f", str(manifest))
    applied = time.perf_counter() - started
    _kubectl(
        kubeconfig,
        workdir,
        "wait",
        "--for=condition=Available",
        "deployment",
        "--all",
        "-n",
        "kubectl-set",
        f"--timeout={WAIT_TIMEOUT}",
    )
    return time.perf_counter() - started, applied


async def run(options: FleetOptions) -> Compared:
    async with Fleet.open(options) as fleet:
        counts = await fleet.request_counts()
        seconds = await fleet.deploy()
        requests = difference(counts, await fleet.request_counts())
        workdir = fleet.kubeconfig.parent
        total, applied = kubectl_seconds(fleet.kubeconfig, workdir, options.resources)
        return Compared(options, seconds, total, applied, requests)


def main(argv: list[str]) -> int:
    if shutil.which("kubectl") is None:
        print("kubectl is not on PATH: the baseline needs it", file=sys.stderr)
        return 2
    args = argv if "--apps" in argv else ["--apps", "1", *argv]
    args = args if "--resources" in args else ["--resources", str(RESOURCES), *args]
    ran = run_fleet("sync_vs_kubectl", args, __doc__, run)
    if ran is None:
        return 1
    for options, result in ran.ran:
        ratio = result.sluice / result.kubectl
        report(
            f"sync_vs_kubectl: {options.apps} app(s) of {options.resources} resources, from "
            "nothing to Synced + Healthy",
            f"{options.describe()}; local cluster, NATS and Redis in their own "
            "processes, controller delay 0",
            [
                Line(
                    "Sluice",
                    f"{result.sluice:.2f} s = {ratio:.2f}x kubectl",
                    f"<= {TARGET_RATIO:g}x",
                ),
                Line(
                    "kubectl apply + wait",
                    f"{result.kubectl:.2f} s (apply alone {result.kubectl_apply:.2f} s)",
                ),
                Line("Sluice's cluster requests", verbs(result.requests)),
            ],
            "kubectl apply --server-side -f of the same objects and kubectl wait for every "
            "Deployment, same local cluster, same run",
            ["python", "-m", "bench", "sync_vs_kubectl", *argv],
        )
    return 1 if ran.gave_up else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
