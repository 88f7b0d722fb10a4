"""Chart dependencies: what `helm dependency build` would put in `charts/` before a render.

A chart's `Chart.yaml` lists `dependencies` (name, version constraint, repository). One
already in `charts/` (a directory or a `<name>-<version>.tgz`) is used as it is, as Helm
does. A missing one is filled in, in a private copy of the chart:

- `repository: https://…` (or `http://`): the version is picked from that repository's
  index with the same rules as a source's targetRevision, fetched with the credentials a
  repository Secret gives that URL for the app's project (only to that host), and cached
  per version like every other chart archive;
- `repository: file://<path>`: the directory at `path`, relative to the chart and
  confined to the checkout by the one path resolver, is copied;
- anything else (a `@name` or bare alias of a `helm repo add` the render host has never
  run, `oci://`) is refused, naming the dependency and what to write instead.
"""

import asyncio
import shutil
from pathlib import Path
from typing import Any

import yaml

from app.repo.errors import PathError, RenderError
from app.repo.helm.repository import HelmCharts, pick_version
from app.repo.service import Repositories
from app.repo.worktree import WorkTree

MAX_DEPENDENCIES = 100


def _declared(chart_dir: Path, field: str) -> list[dict[str, Any]]:
    try:
        meta = yaml.safe_load((chart_dir / "Chart.yaml").read_text("utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise RenderError(f"{field}: Chart.yaml cannot be read ({type(e).__name__})") from None
    deps = meta.get("dependencies") if isinstance(meta, dict) else None
    if not deps:
        return []
    if not isinstance(deps, list) or len(deps) > MAX_DEPENDENCIES:
        raise RenderError(f"{field}: Chart.yaml dependencies must be a list of at most 100")
    return [d for d in deps if isinstance(d, dict)]


def _present(charts: Path, name: str) -> bool:
    if (charts / name / "Chart.yaml").is_file():
        return True
    return any(charts.glob(f"{name}-*.tgz"))


async def fill_dependencies(
    repos: Repositories,
    charts: HelmCharts,
    work: WorkTree,
    chart_dir: Path,
    *,
    field: str,
    project: str,
) -> list[str]:
    """Put every missing dependency into `chart_dir/charts` (a private copy); returns
    `name-version` of each one fetched or copied."""
    filled: list[str] = []
    target = chart_dir / "charts"
    for i, dep in enumerate(await asyncio.to_thread(_declared, chart_dir, field)):
        where = f"{field}: Chart.yaml dependencies[{i}]"
        name = str(dep.get("name") or "")
        if not name or "/" in name or name.startswith("."):
            raise RenderError(f"{where}: needs a plain `name`")
        if _present(target, name):
            continue
        repository = str(dep.get("repository") or "").strip()
        wanted = str(dep.get("version") or "")
        if repository.startswith("file://"):
            relative = repository[len("file://") :]
            base = str(chart_dir.relative_to(work.root)) if chart_dir != work.root else ""
            source = work.resolve(relative, field=where, base="" if base == "." else base)
            if not (source / "Chart.yaml").is_file():
                raise PathError(where, f"{repository!r} is not a chart directory")
            await asyncio.to_thread(shutil.copytree, source, target / name, symlinks=True)
            filled.append(f"{name} ({repository})")
            continue
        if not repository.startswith(("https://", "http://")):
            raise RenderError(
                f"{where} ({name}): repository {repository or '(none)'!r} is not a URL; write "
                "the chart repository's https:// URL (Sluice has no `helm repo add` names), "
                "or vendor the chart into charts/"
            )
        remote = await repos.remote(repository, project=project, field=where)
        identity = repos.cache_identity(repository, project=project, field=where)
        index = await charts.index(remote, repository, identity, fresh=False, what=where)
        entry = pick_version(index, name, wanted, where=where)
        extracted = await charts.chart(
            remote, repository, identity, entry, pass_credentials=False, what=where
        )
        await asyncio.to_thread(shutil.copytree, extracted, target / name, symlinks=True)
        filled.append(f"{name}-{entry.version}")
    return filled
