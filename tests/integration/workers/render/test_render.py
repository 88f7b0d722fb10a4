"""The render worker on real NATS, Redis and git: RenderRequest in, ManifestsReady out."""

from app.bus.messages import COMPARE, RENDER, RenderRequest
from app.bus.publish import publish
from app.model.resource import KubeObject
from app.model.sync import RefreshLevel
from app.repo.sourcehash import source_hash
from app.runtime.manifests import manifests_for
from app.runtime.runtime import Runtime
from app.store.manifests import ManifestKey, RenderedManifests
from tests.integration.workers.render.conftest import (
    ask_render,
    config_map,
    published,
    ref,
    register,
    source,
)
from tests.support.gitrepo import GitRepo
from tests.support.helm_charts import shop_chart
from tests.support.waiting import eventually
from workers.render.worker import RenderWorker


def config_object(name: str) -> KubeObject:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}


def names(rendered: RenderedManifests) -> list[str]:
    return [m["metadata"]["name"] for m in rendered.manifests]


async def test_render_publishes_the_commit_and_caches_the_manifests(
    runtime: Runtime, git_repo: GitRepo, render_worker: RenderWorker
) -> None:
    sha = git_repo.commit({"apps/web/cm.yaml": config_map("web", colour="blue")})
    app = await register(runtime, "web", source(git_repo.url, "apps/web"))

    ready = await ask_render(runtime, app)

    assert (ready.revisions, ready.error, ready.level) == ((sha,), "", RefreshLevel.LATEST)
    spec = app.spec.source
    assert spec is not None
    cached = await runtime.manifests.get(ManifestKey(git_repo.url, sha, source_hash(spec)))
    assert cached is not None
    assert [(m["kind"], m["metadata"]["name"], m["data"]) for m in cached.manifests] == [
        ("ConfigMap", "web", {"colour": "blue"})
    ]
    assert cached.source_type == "Directory"


async def test_a_second_app_on_the_same_repo_and_revision_lists_and_fetches_nothing_again(
    runtime: Runtime, git_repo: GitRepo, render_worker: RenderWorker
) -> None:
    sha = git_repo.commit(
        {"apps/web/cm.yaml": config_map("web"), "apps/api/cm.yaml": config_map("api")}
    )
    web = await register(runtime, "web", source(git_repo.url, "apps/web"))
    api = await register(runtime, "api", source(git_repo.url, "apps/api"))
    await ask_render(runtime, web)
    stats = runtime.repos.stats
    assert (stats.ls_remote, stats.fetch) == (1, 1)

    ready = await ask_render(runtime, api)

    assert ready.revisions == (sha,)
    assert (stats.ls_remote, stats.fetch) == (1, 1)


async def test_refs_cache_is_honoured_below_force_and_bypassed_at_force(
    runtime: Runtime, git_repo: GitRepo, render_worker: RenderWorker
) -> None:
    first = git_repo.commit({"apps/web/cm.yaml": config_map("web", colour="blue")})
    app = await register(runtime, "web", source(git_repo.url, "apps/web"))
    await ask_render(runtime, app)
    second = git_repo.commit({"apps/web/cm.yaml": config_map("web", colour="green")})

    latest = await ask_render(runtime, app, RefreshLevel.LATEST)
    assert latest.revisions == (first,)
    assert runtime.repos.stats.ls_remote == 1

    forced = await ask_render(runtime, app, RefreshLevel.FORCE)
    assert (forced.revisions, forced.level) == ((second,), RefreshLevel.FORCE)
    assert runtime.repos.stats.ls_remote == 2

    after = await ask_render(runtime, app, RefreshLevel.LATEST)
    assert after.revisions == (second,), "force refreshed the cached listing"


async def test_manifest_cache_is_honoured_below_force_and_replaced_at_force(
    runtime: Runtime, git_repo: GitRepo, render_worker: RenderWorker
) -> None:
    sha = git_repo.commit({"apps/web/cm.yaml": config_map("web", colour="blue")})
    app = await register(runtime, "web", source(git_repo.url, "apps/web"))
    assert app.spec.source is not None
    key = ManifestKey(git_repo.url, sha, source_hash(app.spec.source))
    planted = RenderedManifests([config_object("planted")], "Directory")
    await runtime.manifests.put(key, planted)

    await ask_render(runtime, app, RefreshLevel.LATEST)
    kept = await runtime.manifests.get(key)
    assert kept is not None and names(kept) == ["planted"]

    await ask_render(runtime, app, RefreshLevel.FORCE)
    rendered = await runtime.manifests.get(key)
    assert rendered is not None and names(rendered) == ["web"]


async def test_bad_yaml_is_an_error_naming_the_app_the_field_and_the_file(
    runtime: Runtime, git_repo: GitRepo, render_worker: RenderWorker
) -> None:
    git_repo.commit(
        {"apps/web/good.yaml": config_map("web"), "apps/web/broken.yaml": "kind: [ConfigMap\n"}
    )
    app = await register(runtime, "web", source(git_repo.url, "apps/web"))

    ready = await ask_render(runtime, app)

    assert ready.revisions == ()
    assert ready.error.startswith("Application sluice/web: spec.source.path: ")
    assert "apps/web/broken.yaml" in ready.error
    assert await runtime.redis.keys("sluice:manifests:*") == []


async def test_a_path_escaping_the_repository_is_an_error_naming_source_path(
    runtime: Runtime, git_repo: GitRepo, render_worker: RenderWorker
) -> None:
    git_repo.commit({"apps/web/cm.yaml": config_map("web")})
    app = await register(runtime, "web", source(git_repo.url, "apps/../../outside"))

    ready = await ask_render(runtime, app)

    assert ready.revisions == ()
    assert ready.error.startswith("Application sluice/web: spec.source.path: ")
    assert "leaves the repository" in ready.error


async def test_a_chart_found_by_discovery_is_rendered_and_cached_for_its_app(
    runtime: Runtime, git_repo: GitRepo, render_worker: RenderWorker
) -> None:
    sha = git_repo.commit(shop_chart("charts/shop"))
    app = await register(runtime, "web", source(git_repo.url, "charts/shop"))

    ready = await ask_render(runtime, app)
    again = await manifests_for(runtime, app)

    assert (ready.revisions, ready.error) == ((sha,), "")
    assert again.rendered == 0
    assert again.source_types == ("Helm",)
    assert "ConfigMap/web-shop" in {f"{o['kind']}/{o['metadata']['name']}" for o in again.manifests}


async def test_multi_source_apps_get_one_commit_per_source_and_one_cache_entry_each(
    runtime: Runtime, git_repo: GitRepo, render_worker: RenderWorker
) -> None:
    first = git_repo.commit({"apps/web/cm.yaml": config_map("web")})
    git_repo.tag("v1")
    second = git_repo.commit({"apps/db/cm.yaml": config_map("db")})
    app = await register(
        runtime,
        "shop",
        source(git_repo.url, "apps/web", "v1"),
        source(git_repo.url, "apps/db", "main"),
        source(git_repo.url, "", "main", ref="values"),
        multi=True,
    )

    ready = await ask_render(runtime, app)

    assert (ready.revisions, ready.error) == ((first, second, second), "")
    web, db, values = app.spec.sources
    for spec, commit, expected in (
        (web, first, ["web"]),
        (db, second, ["db"]),
        (values, second, []),
    ):
        cached = await runtime.manifests.get(ManifestKey(git_repo.url, commit, source_hash(spec)))
        assert cached is not None and names(cached) == expected


async def test_a_request_for_an_app_no_longer_registered_is_dropped(
    runtime: Runtime, git_repo: GitRepo, render_worker: RenderWorker
) -> None:
    git_repo.commit({"apps/web/cm.yaml": config_map("web")})
    gone = await register(runtime, "gone", source(git_repo.url, "apps/web"))
    await runtime.apps.delete(ref(gone))

    await publish(runtime.bus, RENDER, RenderRequest(ref(gone), RefreshLevel.LATEST, "test"))

    async def consumed() -> bool:
        return await published(runtime.bus, RENDER, ref(gone)) == []

    await eventually(consumed, what="the render request to be taken and acknowledged")
    assert await published(runtime.bus, COMPARE, ref(gone)) == []
