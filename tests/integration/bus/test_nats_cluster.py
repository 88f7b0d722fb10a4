"""A three-node NATS cluster with R3 streams: a member dies, even the stream leader, and
no published work is lost; the client's server pool moves to the members left."""

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.bus import subjects, topology
from app.bus.connection import Bus, NatsSettings, connect
from app.bus.consumer import Consumer, ConsumerSettings, Delivery
from app.bus.messages import REFRESH, RefreshRequest
from app.bus.publish import publish
from app.bus.topology import TopologySettings
from app.embedded.nats import NatsCluster
from app.embedded.process import free_port
from app.model.identity import AppRef
from app.model.sync import RefreshLevel
from app.runtime.settings import Settings
from tests.support.waiting import eventually

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

APPS = 60
STORM = 600
FAST = ConsumerSettings(fetch_wait=0.5, retry_delay=0.1, retry_delay_max=0.5, drain_timeout=2)
R3 = TopologySettings(replicas=3)


@pytest.fixture
def nats_cluster(tmp_path: Path) -> Iterator[NatsCluster]:
    cluster = NatsCluster.start(tmp_path / "nats-cluster")
    try:
        yield cluster
    finally:
        cluster.stop()


async def stream_leader(bus: Bus) -> str:
    info = await bus.js.stream_info(subjects.WORK_STREAM)
    assert info.cluster is not None and info.cluster.leader, "the work stream has no leader"
    assert len(info.cluster.replicas or []) == 2, "the work stream is not replicated three ways"
    return str(info.cluster.leader)


async def test_killing_the_stream_leader_in_a_refresh_storm_loses_no_refresh(
    nats_cluster: NatsCluster,
) -> None:
    bus = await connect(NatsSettings(url=nats_cluster.urls, name="storm"))
    worker = await connect(NatsSettings(url=nats_cluster.urls, name="worker"))
    await topology.ensure(bus, R3)
    leader = nats_cluster.index_of(await stream_leader(bus))
    try:
        seen: dict[str, int] = {}

        async def handle(d: Delivery[RefreshRequest]) -> None:
            seen[d.message.reason] = seen.get(d.message.reason, 0) + 1

        async with Consumer(worker, REFRESH, handle, FAST):
            for i in range(STORM):
                if i == STORM // 3:
                    nats_cluster.kill(leader)
                app = AppRef("sluice", f"app-{i % APPS}")
                await publish(bus, REFRESH, RefreshRequest(app, RefreshLevel.LATEST, f"#{i}"))

            async def delivered() -> bool:
                return len(seen) == STORM

            await eventually(delivered, timeout=90, what="every refresh delivered")
            new_leader = await stream_leader(bus)
        assert nats_cluster.index_of(new_leader) != leader
        redelivered = sum(n - 1 for n in seen.values())
        print(f"\n{STORM} refreshes, leader killed at #{STORM // 3}: {redelivered} redelivered")
    finally:
        await bus.close()
        await worker.close()
        nats_cluster.restart(leader)


async def test_a_process_configured_from_the_environment_reaches_a_cluster_missing_a_member(
    nats_cluster: NatsCluster,
) -> None:
    nats_cluster.kill(0)
    settings = Settings.from_env({"NATS_URL": nats_cluster.urls, "SLUICE_STREAM_REPLICAS": "3"})
    bus = await connect(settings.nats)
    try:
        await topology.ensure(bus, settings.topology)
        for stream in (subjects.WORK_STREAM, subjects.EVENTS_STREAM):
            info = await bus.js.stream_info(stream)
            assert info.config.num_replicas == 3
        assert await stream_leader(bus)
    finally:
        await bus.close()
        nats_cluster.restart(0)


def test_a_port_taken_before_its_member_binds_it_starts_the_cluster_on_fresh_ports(
    tmp_path: Path,
) -> None:
    """The chaos run's clash: the last member's route port, picked free, was by then the
    source port of a route between the first two members."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        picks = iter([free_port, free_port, free_port, free_port, free_port, lambda _: taken])

        def pick(host: str) -> int:
            return next(picks, free_port)(host)

        cluster = NatsCluster.start(tmp_path / "nats", pick_port=pick)
        try:
            ports = [p for o in cluster.options for p in (o.port, o.cluster_port)]
            assert taken not in ports
            assert len(cluster.pids) == 3
        finally:
            cluster.stop()
    logs = "".join(p.read_text() for p in (tmp_path / "nats").rglob("nats-server.log"))
    assert str(taken) not in logs, "a store of the clashed start was kept"
