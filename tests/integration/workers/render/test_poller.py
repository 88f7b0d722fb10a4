"""The Git poller: one latest refresh for exactly the apps whose target moved; one leader."""

from collections.abc import AsyncIterator

import pytest

from app.bus.messages import REFRESH, RefreshRequest
from app.model.application import Application
from app.model.status import ApplicationStatus, SyncStatus
from app.model.sync import RefreshLevel
from app.runtime.runtime import Runtime
from app.store.refs import RefsCache
from tests.integration.workers.render.conftest import config_map, published, ref, register, source
from tests.support.gitrepo import GitRepo
from tests.support.waiting import eventually
from workers.poller.worker import Poller, poll_once


async def compared(rt: Runtime, app: Application, *revisions: str) -> None:
    """Record a comparison of `app` at `revisions` (one per source), as the compare stage does."""
    seq = await rt.status.begin_comparison(ref(app))
    multi = app.spec.is_multi_source
    sync = SyncStatus(revisions=list(revisions)) if multi else SyncStatus(revision=revisions[0])
    assert (await rt.status.write_comparison(ref(app), seq, ApplicationStatus(sync=sync))).written


async def refreshes(rt: Runtime, *apps: Application) -> dict[str, list[RefreshRequest]]:
    return {a.name: await published(rt.bus, REFRESH, ref(a)) for a in apps}


@pytest.fixture
async def tracked(runtime: Runtime, git_repo: GitRepo) -> AsyncIterator[dict[str, Application]]:
    """Apps on one repository, all compared at its first commit (tagged v1)."""
    first = git_repo.commit(
        {"apps/web/cm.yaml": config_map("web"), "apps/db/cm.yaml": config_map("db")}
    )
    git_repo.tag("v1")
    apps = {
        "web": await register(runtime, "web", source(git_repo.url, "apps/web", "main")),
        "db": await register(runtime, "db", source(git_repo.url, "apps/db", "main")),
        "pinned": await register(runtime, "pinned", source(git_repo.url, "apps/web", "v1")),
        "sha": await register(runtime, "sha", source(git_repo.url, "apps/web", first)),
        "multi": await register(
            runtime,
            "multi",
            source(git_repo.url, "apps/web", "v1"),
            source(git_repo.url, "apps/db", "main"),
            multi=True,
        ),
    }
    for app in apps.values():
        revisions = [first] * len(app.spec.all_sources)
        await compared(runtime, app, *revisions)
    await register(runtime, "new", source(git_repo.url, "apps/web", "main"))
    yield apps


async def test_nothing_moved_nothing_is_refreshed(
    runtime: Runtime, tracked: dict[str, Application]
) -> None:
    assert await poll_once(runtime) == 0

    assert all(found == [] for found in (await refreshes(runtime, *tracked.values())).values())
    assert runtime.repos.stats.ls_remote == 1, "one ls-remote for the one repository"


async def test_a_commit_on_the_branch_refreshes_exactly_the_apps_tracking_it(
    runtime: Runtime, git_repo: GitRepo, tracked: dict[str, Application]
) -> None:
    second = git_repo.commit({"apps/web/cm.yaml": config_map("web", colour="green")})

    assert await poll_once(runtime) == 3

    found = await refreshes(runtime, *tracked.values())
    reason = f"poller: {git_repo.url} main moved to {second[:7]}"
    expected = {"web", "db", "multi"}
    for name, requests in found.items():
        if name in expected:
            assert [(r.level, r.reason) for r in requests] == [(RefreshLevel.LATEST, reason)], name
        else:
            assert requests == [], f"{name} does not track main"
    cached = await RefsCache(runtime.redis, 60).get(git_repo.url)
    assert cached is not None and cached.refs["refs/heads/main"] == second


async def test_an_app_already_compared_at_the_new_commit_is_left_alone(
    runtime: Runtime, git_repo: GitRepo, tracked: dict[str, Application]
) -> None:
    second = git_repo.commit({"apps/web/cm.yaml": config_map("web", colour="green")})
    await compared(runtime, tracked["web"], second)

    assert await poll_once(runtime) == 2

    found = await refreshes(runtime, tracked["web"], tracked["db"])
    assert (len(found["web"]), len(found["db"])) == (0, 1)


async def test_a_repository_that_cannot_be_listed_refreshes_nothing_and_spares_the_others(
    runtime: Runtime, git_repo: GitRepo, tracked: dict[str, Application]
) -> None:
    broken = await register(runtime, "broken", source("https://127.0.0.1:9/x.git", "apps", "main"))
    await compared(runtime, broken, "c" * 40)
    git_repo.commit({"apps/web/cm.yaml": config_map("web", colour="green")})

    assert await poll_once(runtime) == 3

    assert (await refreshes(runtime, broken))["broken"] == []


async def test_one_replica_polls_and_another_takes_over_when_it_stops(runtime: Runtime) -> None:
    first, second = Poller(runtime, interval=0.05), Poller(runtime, interval=0.05)
    await first.start()
    await second.start()
    try:

        async def one_leader() -> Poller | None:
            leaders = [p for p in (first, second) if p.leading]
            assert len(leaders) <= 1, "two replicas polling at once"
            return leaders[0] if leaders else None

        leader = await eventually(one_leader, what="a leader")
        other = second if leader is first else first
        await leader.stop()

        async def other_leads() -> bool:
            return other.leading

        await eventually(other_leads, timeout=5, what="the other replica to take over")
    finally:
        await first.stop()
        await second.stop()
