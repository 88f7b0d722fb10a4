"""Ports for embedded servers: kept across a restart, so none an outgoing connection takes."""

import socket
from pathlib import Path

from app.embedded import process
from app.embedded.process import ephemeral_range, free_port


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def test_a_picked_port_is_free_and_outside_the_source_ports_of_connections() -> None:
    low, high = ephemeral_range()
    for _ in range(20):
        port = free_port("127.0.0.1")
        assert process.FIRST_KEPT_PORT <= port < low
        assert _bindable(port)
    assert low <= high


def test_the_kernel_picks_when_nothing_below_the_ephemeral_range_is_free() -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", process.FIRST_KEPT_PORT))
        held.listen()
        port = free_port("127.0.0.1", ephemeral=(process.FIRST_KEPT_PORT + 1, 60999))
    assert port != process.FIRST_KEPT_PORT
    assert port > 0


def test_the_range_is_read_from_the_kernel_and_defaults_when_unreadable(tmp_path: Path) -> None:
    given = tmp_path / "ip_local_port_range"
    given.write_text("40000\t50000\n")
    assert ephemeral_range(given) == (40000, 50000)
    given.write_text("garbage\n")
    assert ephemeral_range(given) == process.DEFAULT_EPHEMERAL_RANGE
    assert ephemeral_range(tmp_path / "missing") == process.DEFAULT_EPHEMERAL_RANGE
