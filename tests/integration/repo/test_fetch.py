"""Fetching: one fetch per (repository, commit) however many ask, shallow, bounded, deadlined."""

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from app.model.app_spec import ApplicationSource
from app.repo.errors import GitTimeout, LimitExceeded
from app.repo.service import Repositories
from app.repo.settings import RepoSettings
from tests.integration.repo.origin import Origin, manifest


async def test_concurrent_fetches_of_one_commit_cost_one_fetch(
    repos: Repositories, origin: Origin
) -> None:
    commit = origin.commit("one", {"app/a.yaml": manifest("a")})
    results = await asyncio.gather(*(repos.fetch(origin.url, commit) for _ in range(50)))
    assert set(results) == {commit}
    assert repos.stats.fetch == 1
    await repos.fetch(origin.url, commit)
    assert repos.stats.fetch == 1


async def test_a_thousand_apps_on_one_repository_cost_one_fetch_and_one_render(
    repos: Repositories, origin: Origin
) -> None:
    origin.commit("one", {f"app/cm-{i}.yaml": manifest(f"cm-{i}") for i in range(10)})
    source = ApplicationSource(repo_url=origin.url, path="app", target_revision="main")

    async def app() -> int:
        resolved = await repos.resolve(source.repo_url, source.target_revision)
        rendered = await repos.render_directory(source, resolved.commit)
        return len(rendered.files)

    counts = await asyncio.gather(*(app() for _ in range(1000)))
    assert set(counts) == {10}
    assert (repos.stats.ls_remote, repos.stats.fetch, repos.stats.tree_load) == (1, 1, 1)
    assert repos.stats.render == 1


async def test_new_commits_fetch_again(repos: Repositories, origin: Origin) -> None:
    first = origin.commit("one", {"a.yaml": manifest("a")})
    second = origin.commit("two", {"b.yaml": manifest("b")})
    await repos.fetch(origin.url, first)
    await repos.fetch(origin.url, second)
    assert repos.stats.fetch == 2


async def test_shallow_fetch_does_not_bring_history(repos: Repositories, origin: Origin) -> None:
    older = origin.commit("one", {"a.yaml": manifest("a")})
    latest = origin.commit("two", {"b.yaml": manifest("b")})
    await repos.fetch(origin.url, latest)
    await repos.resolve(origin.url, older[:10])
    assert repos.stats.history_fetch == 1


async def test_processes_sharing_a_cache_fetch_once(settings: RepoSettings, origin: Origin) -> None:
    commit = origin.commit("one", {"a.yaml": manifest("a")})
    replicas = [Repositories(settings) for _ in range(3)]
    await asyncio.gather(*(r.fetch(origin.url, commit) for r in replicas for _ in range(5)))
    assert sum(r.stats.fetch for r in replicas) == 1


async def test_oversized_fetch_is_refused_and_leaves_the_cache_unchanged(
    tmp_path: Path, origin: Origin
) -> None:
    commit = origin.commit("big", {"a.yaml": manifest("a")})
    (origin.path / "blob.bin").write_bytes(os.urandom(256 * 1024))
    big = origin.commit("bigger")
    small = Repositories(
        RepoSettings(cache_dir=tmp_path / "cache", allow_local=True, max_fetch_bytes=64 * 1024)
    )
    await small.fetch(origin.url, commit)
    with pytest.raises(
        LimitExceeded, match=r"downloaded more than 65536 bytes \(max_fetch_bytes\)"
    ):
        await small.fetch(origin.url, big)
    with pytest.raises(LimitExceeded):
        await small.fetch(origin.url, big)
    assert small.stats.fetch == 1


async def test_unreachable_server_hits_the_deadline(tmp_path: Path) -> None:
    connections: list[asyncio.StreamWriter] = []

    async def hold(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(writer)

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    repos = Repositories(RepoSettings(cache_dir=tmp_path / "cache", network_timeout=0.5))
    try:
        with pytest.raises(GitTimeout, match=r"did not finish within 0\.5 s"):
            await repos.resolve(f"http://127.0.0.1:{port}/org/repo.git", "HEAD")
    finally:
        for writer in connections:
            writer.close()
        server.close()
        await server.wait_closed()


async def test_fetched_commits_stay_referenced_through_a_gc(
    repos: Repositories, settings: RepoSettings, origin: Origin
) -> None:
    first = origin.commit("one", {"a.yaml": manifest("a")})
    second = origin.commit("two", {"b.yaml": manifest("b")})
    await repos.fetch(origin.url, first)
    await repos.fetch(origin.url, second)
    [cache] = [p for p in (settings.cache_dir / "repos").iterdir() if (p / "HEAD").exists()]

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", f"--git-dir={cache}", *args], capture_output=True, text=True, check=True
        )
        return done.stdout

    listed = git("for-each-ref", "--format=%(refname) %(objectname)", "refs/sluice")
    assert sorted(listed.splitlines()) == sorted(
        [f"refs/sluice/{first} {first}", f"refs/sluice/{second} {second}"]
    )
    git("gc", "--quiet", "--prune=now")
    assert git("cat-file", "-t", first).strip() == "commit"
    assert git("cat-file", "-t", second).strip() == "commit"
    assert not [p.name for p in (cache / "refs" / "sluice").iterdir() if p.name.startswith(".")]
