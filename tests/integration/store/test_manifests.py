"""The manifest cache: keyed by (repo, commit, spec), expiring, and verified on every read."""

import pytest

from app.store.connection import Redis
from app.store.keys import manifests as manifests_key
from app.store.manifests import (
    ManifestCache,
    ManifestCacheSettings,
    ManifestKey,
    RenderedManifests,
)

COMMIT = "0123456789abcdef0123456789abcdef01234567"
KEY = ManifestKey("https://git.example/apps.git", COMMIT, "ab" * 32)
RENDER = RenderedManifests(
    [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "guestbook"}}],
    source_type="Directory",
)


async def test_put_then_get_round_trips_with_ttl(redis_client: Redis) -> None:
    cache = ManifestCache(redis_client, ManifestCacheSettings(ttl=60))
    assert await cache.get(KEY) is None
    assert await cache.put(KEY, RENDER)
    assert await cache.get(KEY) == RENDER
    ttl = await redis_client.pttl(manifests_key(KEY.repo_url, KEY.commit, KEY.spec_hash))
    assert 0 < ttl <= 60_000


async def test_other_commit_or_spec_is_a_miss(redis_client: Redis) -> None:
    cache = ManifestCache(redis_client)
    await cache.put(KEY, RENDER)
    assert await cache.get(ManifestKey(KEY.repo_url, "f" * 40, KEY.spec_hash)) is None
    assert await cache.get(ManifestKey(KEY.repo_url, COMMIT, "cd" * 32)) is None


@pytest.mark.parametrize(
    ("field", "value"),
    [
        pytest.param("data", b'{"manifests":[{"kind":"Secret"}]}', id="data-tampered"),
        pytest.param("digest", b"sha256:" + b"0" * 64, id="digest-tampered"),
    ],
)
async def test_entry_failing_verification_is_a_miss_and_removed(
    redis_client: Redis, field: str, value: bytes
) -> None:
    cache = ManifestCache(redis_client)
    await cache.put(KEY, RENDER)
    name = manifests_key(KEY.repo_url, KEY.commit, KEY.spec_hash)
    await redis_client.hset(name, field, value)
    assert await cache.get(KEY) is None
    assert not await redis_client.exists(name)


async def test_forged_entry_without_the_secret_is_a_miss(redis_client: Redis) -> None:
    forger = ManifestCache(redis_client)
    await forger.put(KEY, RENDER)
    cache = ManifestCache(redis_client, ManifestCacheSettings(secret=b"only-sluice-knows"))
    assert await cache.get(KEY) is None
    await cache.put(KEY, RENDER)
    assert await cache.get(KEY) == RENDER


async def test_render_over_the_limit_is_not_cached(redis_client: Redis) -> None:
    cache = ManifestCache(redis_client, ManifestCacheSettings(max_bytes=100))
    big = RenderedManifests([{"kind": "ConfigMap", "data": {"x": "y" * 200}}])
    assert not await cache.put(KEY, big)
    assert await cache.get(KEY) is None


@pytest.mark.parametrize(
    "commit",
    [pytest.param("main", id="branch"), pytest.param("ABC" * 14, id="uppercase")],
)
def test_key_needs_a_resolved_commit(commit: str) -> None:
    with pytest.raises(ValueError, match="resolved commit"):
        ManifestKey("https://git.example/apps.git", commit, "ab" * 32)


def test_credentials_in_the_repo_url_never_reach_the_key() -> None:
    key = manifests_key("https://user:s3cret@git.example/apps.git", COMMIT, "ab" * 32)
    assert "s3cret" not in key and "git.example" not in key
