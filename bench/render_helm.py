"""Renders per second of a 50-template Helm chart, next to a 50-file directory source.

Both sources live in one local Git repository at one commit and are rendered the way the
render worker renders them (`Repositories.render_directory` and the Helm branch's
`render_git_chart`: a private checkout, Helm's engine in its bounded child process),
sequentially, with every cache that would skip the work turned off, so each iteration is
a full render. The directory source (the same 50 objects as plain YAML, read straight
from Git) is the baseline. While Helm renders, the resident memory of this process (the
render worker's part) and of its render child are sampled every 20 ms; their peaks are
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
from app.model.app_spec import ApplicationSource
from app.repo.helm.render import HelmTarget, render_git_chart
from app.repo.helm.repository import HelmCharts
from app.repo.service import Repositories
from app.repo.settings import RepoSettings
from bench.support.figures import Line, report
from bench.support.options import positive
from tests.support.gitrepo import GitRepo

TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{{{ .Release.Name }}}}-cm-{index}
  labels:
    {{{{- include "bench.labels" . | nindent 4 }}}}
data:
  replicas: {{{{ .Values.replicas | quote }}}}
  colour: {{{{ .Values.colour | default "blue" | quote }}}}
  kube: {{{{ .Capabilities.KubeVersion.Version | quote }}}}
"""

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
  kube: v1.32.0
"""

TEMPLATES = 50


def files() -> dict[str, str]:
    chart = {
        "chart/Chart.yaml": "apiVersion: v2\nname: bench\nversion: 1.0.0\n",
        "chart/values.yaml": "replicas: 3\n",
        "chart/templates/_helpers.tpl": (
            '{{- define "bench.labels" -}}\napp.kubernetes.io/name: bench\n{{- end -}}\n'
        ),
    }
    for i in range(TEMPLATES):
        chart[f"chart/templates/cm-{i}.yaml"] = TEMPLATE.format(index=i)
        chart[f"plain/cm-{i}.yaml"] = PLAIN.format(index=i)
    return chart


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
    charts = HelmCharts(work / "charts", settings.helm, network_timeout=30)
    plain = ApplicationSource(repo.url, path="plain", target_revision="main")
    chart = ApplicationSource(repo.url, path="chart", target_revision="main")
    target = HelmTarget("bench", "default", "default", "v1.32.0", ("v1",))

    async def directory() -> int:
        return len((await repos.render_directory(plain, commit)).files)

    async def helm() -> int:
        rendered = await render_git_chart(
            repos, chart, commit, target, field="spec.source", project="", charts=charts,
            settings=settings.helm,
        )  # fmt: skip
        return len(rendered.manifests)

    assert await directory() == TEMPLATES and await helm() == TEMPLATES
    started = time.perf_counter()
    for _ in range(rounds):
        await directory()
    plain_rate = rounds / (time.perf_counter() - started)
    peaks = {"worker": 0, "child": 0}
    stop = asyncio.Event()
    sampler = asyncio.create_task(_sample(psutil.Process().pid, peaks, stop))
    started = time.perf_counter()
    for _ in range(rounds):
        await helm()
    helm_rate = rounds / (time.perf_counter() - started)
    stop.set()
    await sampler
    repo.close()
    mib = 1 << 20
    return [
        Line("directory source, 50 files (baseline)", f"{plain_rate:.1f} renders/s"),
        Line(
            "Helm chart, 50 templates",
            f"{helm_rate:.1f} renders/s, {helm_rate / plain_rate:.3f} x the baseline",
        ),
        Line("render worker RSS while rendering Helm (peak)", f"{peaks['worker'] / mib:.0f} MiB"),
        Line("Helm render child RSS (peak)", f"{peaks['child'] / mib:.0f} MiB"),
    ]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench render_helm", description=__doc__)
    parser.add_argument("--rounds", type=positive, default=20, help="renders of each source")
    args = parser.parse_args(argv)
    log_setup.configure(level="warning")
    with tempfile.TemporaryDirectory(prefix="bench-helm-") as work:
        lines = asyncio.run(measure(args.rounds, Path(work)))
    report(
        f"render_helm: full renders, {args.rounds} of each, one after another",
        "one local Git repository, one commit, every render cache off",
        lines,
        "the directory source of the same 50 objects, measured in the same run",
        ["python", "-m", "bench", "render_helm", *argv],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
