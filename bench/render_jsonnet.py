"""Renders per second of a Jsonnet directory source, next to a 50-file directory source.

Both sources live in one local Git repository at one commit and are rendered the way the
render worker renders them: the directory source by `Repositories.render_directory`
(files read straight from Git, the baseline), the Jsonnet source by the same walk plus
`evaluate_jsonnet` (a private checkout, go-jsonnet in its bounded child process, with
TLAs, ext vars and a lib) and the manifest loader, sequentially, with every cache that
would skip the work turned off, so each iteration is a full render. Both produce the same
50 ConfigMaps. While Jsonnet renders, the resident memory of this process (the render
worker's part) and of its evaluator child are sampled every 20 ms; their peaks are
printed.
"""

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

import psutil

from app import log_setup
from app.engine.manifests import load_manifests
from app.model.app_spec import ApplicationSource, ApplicationSourceDirectory
from app.repo.jsonnet import evaluate_jsonnet
from app.repo.service import Repositories
from app.repo.settings import RepoSettings
from bench.support.figures import Line, report
from bench.support.options import positive
from tests.support.gitrepo import GitRepo

OBJECTS = 50
LIB = """
{
  configMap(name, data): {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: {name: name, labels: {'app.kubernetes.io/name': 'bench'}},
    data: data,
  },
}
"""
MAIN = """
local k = import 'k.libsonnet';
function(colour, replicas) [
  k.configMap('bench-cm-%d' % i, {replicas: std.toString(replicas), colour: colour,
                                  env: std.extVar('env')})
  for i in std.range(0, LAST)
]
""".replace("LAST", str(OBJECTS - 1))
PLAIN = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: bench-cm-{index}
  labels:
    app.kubernetes.io/name: bench
data:
  replicas: "3"
  colour: blue
  env: prod
"""
JSONNET = {
    "tlas": [{"name": "colour", "value": "blue"}, {"name": "replicas", "value": "3", "code": True}],
    "extVars": [{"name": "env", "value": "prod"}],
    "libs": ["vendor"],
}


def files() -> dict[str, str]:
    found = {"vendor/k.libsonnet": LIB, "jsonnet/main.jsonnet": MAIN}
    for i in range(OBJECTS):
        found[f"plain/cm-{i}.yaml"] = PLAIN.format(index=i)
    return found


async def _sample(pid: int, peaks: dict[str, int], stop: asyncio.Event) -> None:
    me = psutil.Process(pid)
    while not stop.is_set():
        peaks["worker"] = max(peaks["worker"], me.memory_info().rss)
        for child in me.children(recursive=True):
            try:
                peaks["child"] = max(peaks["child"], child.memory_info().rss)
            except psutil.Error:
                continue
        await asyncio.sleep(0.02)


async def measure(rounds: int, work: Path) -> list[Line]:
    repo = GitRepo.create(work / "repo")
    commit = repo.commit(files())
    settings = RepoSettings(cache_dir=work / "cache", allow_local=True, render_cache_bytes=0)
    repos = Repositories(settings)
    plain = ApplicationSource(repo.url, path="plain", target_revision="main")
    jsonnet = ApplicationSource(
        repo.url, path="jsonnet", target_revision="main",
        directory=ApplicationSourceDirectory(jsonnet=JSONNET),
    )  # fmt: skip

    async def directory() -> int:
        render = await repos.render_directory(plain, commit)
        return len(load_manifests(render.files))

    async def evaluated() -> int:
        render = await repos.render_directory(jsonnet, commit)
        outputs = await evaluate_jsonnet(
            repos, jsonnet, commit, render.jsonnet,
            field="spec.source", project="", variables={"ARGOCD_APP_NAME": "bench"},
        )  # fmt: skip
        return len(load_manifests(outputs))

    assert await directory() == OBJECTS and await evaluated() == OBJECTS
    started = time.perf_counter()
    for _ in range(rounds):
        await directory()
    plain_rate = rounds / (time.perf_counter() - started)
    peaks = {"worker": 0, "child": 0}
    stop = asyncio.Event()
    sampler = asyncio.create_task(_sample(psutil.Process().pid, peaks, stop))
    started = time.perf_counter()
    for _ in range(rounds):
        await evaluated()
    jsonnet_rate = rounds / (time.perf_counter() - started)
    stop.set()
    await sampler
    repo.close()
    mib = 1 << 20
    return [
        Line("directory source, 50 files (baseline)", f"{plain_rate:.1f} renders/s"),
        Line(
            "Jsonnet source, 50 objects",
            f"{jsonnet_rate:.1f} renders/s, {jsonnet_rate / plain_rate:.3f} x the baseline",
        ),
        Line(
            "render worker RSS while rendering Jsonnet (peak)", f"{peaks['worker'] / mib:.0f} MiB"
        ),
        Line("Jsonnet evaluator child RSS (peak)", f"{peaks['child'] / mib:.0f} MiB"),
    ]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench render_jsonnet", description=__doc__)
    parser.add_argument("--rounds", type=positive, default=20, help="renders of each source")
    args = parser.parse_args(argv)
    log_setup.configure(level="warning")
    with tempfile.TemporaryDirectory(prefix="bench-jsonnet-") as work:
        lines = asyncio.run(measure(args.rounds, Path(work)))
    report(
        f"render_jsonnet: full renders, {args.rounds} of each, one after another",
        "one local Git repository, one commit, every render cache off",
        lines,
        "the directory source of the same 50 objects, measured in the same run",
        ["python", "-m", "bench", "render_jsonnet", *argv],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
