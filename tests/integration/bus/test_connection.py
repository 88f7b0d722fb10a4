"""The NATS connection tells a lost server (a warning) from its own close (routine)."""

from pathlib import Path

import structlog

from app.bus.connection import NatsSettings, connect
from app.embedded.nats import NatsOptions, NatsServer
from tests.support.waiting import eventually


async def test_closing_is_routine_and_losing_the_server_is_a_warning(tmp_path: Path) -> None:
    server = NatsServer.start(NatsOptions(state_dir=tmp_path))
    try:
        with structlog.testing.capture_logs() as logs:
            bus = await connect(NatsSettings(url=server.url))
            await bus.close()
        closed = [e for e in logs if e["event"] in ("nats.closed", "nats.disconnected")]
        assert [(e["event"], e["log_level"]) for e in closed] == [("nats.closed", "info")]

        bus = await connect(NatsSettings(url=server.url))
        with structlog.testing.capture_logs() as logs:
            server.stop()

            async def lost() -> list[dict[str, object]]:
                return [e for e in logs if e["event"] == "nats.disconnected"]

            found = await eventually(lost, timeout=10, what="the disconnect to be logged")
        assert found[0]["log_level"] == "warning"
        await bus.client.close()
    finally:
        server.stop()
