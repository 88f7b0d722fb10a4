"""The refs cache (app/store/refs.py) on a real Redis, and renders once a listing expired."""

from dataclasses import replace

import pytest

from app.runtime.manifests import manifests_for
from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from app.store import keys
from app.store.refs import MAX_REFS_BYTES, CachedRefs, RefsCache
from tests.integration.workers.render.conftest import config_map, register, source
from tests.support.gitrepo import GitRepo
from tests.support.waiting import eventually

URL = "https://git.example.com/team/app.git"
MAIN = "a" * 40
TAG = "b" * 40
SHORT_TTL = 0.3


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return replace(settings, timing=replace(settings.timing, refs_cache_ttl=SHORT_TTL))


async def test_a_listing_is_read_back_as_stored_and_expires_after_its_ttl(
    runtime: Runtime,
) -> None:
    cache = RefsCache(runtime.redis, ttl=30.0)
    assert await cache.put(URL, {"refs/heads/main": MAIN, "refs/tags/v1": TAG}, MAIN)

    assert await cache.get(URL) == CachedRefs({"refs/heads/main": MAIN, "refs/tags/v1": TAG}, MAIN)
    ttl_ms = await runtime.redis.pttl(keys.refs(keys.repo_digest(URL)))
    assert 0 < ttl_ms <= 30_000
    assert await cache.get(URL.removesuffix(".git")) is None, "another URL is another entry"

    await cache.forget(URL)
    assert await cache.get(URL) is None


@pytest.mark.parametrize(
    "stored",
    [
        pytest.param(b"not json", id="not-json"),
        pytest.param(b"[1, 2]", id="not-an-object"),
        pytest.param(b'{"refs": {"refs/heads/main": "main"}, "head": null}', id="ref-not-a-commit"),
        pytest.param(b'{"refs": {}, "head": "HEAD"}', id="head-not-a-commit"),
        pytest.param(b'{"refs": [], "head": null}', id="refs-not-an-object"),
    ],
)
async def test_an_unreadable_listing_is_a_miss(runtime: Runtime, stored: bytes) -> None:
    await runtime.redis.set(keys.refs(keys.repo_digest(URL)), stored)

    assert await RefsCache(runtime.redis).get(URL) is None


async def test_a_zero_ttl_caches_nothing(runtime: Runtime) -> None:
    cache = RefsCache(runtime.redis, ttl=0)

    assert not await cache.put(URL, {"refs/heads/main": MAIN}, MAIN)
    assert await runtime.redis.exists(keys.refs(keys.repo_digest(URL))) == 0


async def test_a_listing_over_the_size_limit_is_not_stored(runtime: Runtime) -> None:
    many = {f"refs/tags/v{i}": MAIN for i in range(MAX_REFS_BYTES // 60)}

    assert not await RefsCache(runtime.redis).put(URL, many, MAIN)
    assert await runtime.redis.exists(keys.refs(keys.repo_digest(URL))) == 0


async def test_once_the_listing_expired_a_render_resolves_the_new_commit(
    runtime: Runtime, git_repo: GitRepo
) -> None:
    git_repo.commit({"apps/web/cm.yaml": config_map("web", colour="blue")})
    app = await register(runtime, "web", source(git_repo.url, "apps/web"))
    await manifests_for(runtime, app)
    second = git_repo.commit({"apps/web/cm.yaml": config_map("web", colour="green")})

    async def expired() -> bool:
        return await RefsCache(runtime.redis, SHORT_TTL).get(git_repo.url) is None

    await eventually(expired, what="the cached listing to expire")
    result = await manifests_for(runtime, app)

    assert result.revisions == (second,)
    assert runtime.repos.stats.ls_remote == 2
