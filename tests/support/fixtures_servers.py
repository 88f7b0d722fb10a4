"""Real NATS and Redis for the test suite: one server each per session, a clean slate per test.

Session fixtures start the servers (`nats_url`, `redis_url`) in a temporary directory and
register their pids with `procs.allow`, so the leak guard lets them outlive each test.
Function fixtures give each test what it may dirty:

- `redis_db_url`: a Redis database of its own, flushed before the test (the session server
  has `REDIS_DATABASES` of them, handed out in turn); `redis_client` is connected to it.
- `bus`: a NATS connection to a server with no streams left by earlier tests;
  `ready_bus` additionally has Sluice's streams and consumers (default settings).

`SLUICE_TEST_REDIS_URL` points the suite at an external Redis instead (its databases are
flushed: never aim it at data you want).
"""

import itertools
import os
from collections.abc import AsyncIterator, Iterator
from urllib.parse import urlsplit, urlunsplit

import pytest

from app.bus import subjects, topology
from app.bus.connection import Bus, NatsSettings, connect
from app.embedded.nats import NatsOptions, NatsServer
from app.embedded.redis import RedisOptions, RedisServer
from app.store.connection import Redis, RedisSettings
from app.store.connection import connect as connect_redis
from tests.support import procs

REDIS_DATABASES = 64
_next_db = itertools.count(1)


@pytest.fixture(scope="session")
def nats_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsServer]:
    server = NatsServer.start(NatsOptions(state_dir=tmp_path_factory.mktemp("nats")))
    procs.allow(server.pid)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def nats_url(nats_server: NatsServer) -> str:
    return nats_server.url


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    external = os.environ.get("SLUICE_TEST_REDIS_URL")
    if external:
        yield external
        return
    options = RedisOptions(state_dir=tmp_path_factory.mktemp("redis"), databases=REDIS_DATABASES)
    server = RedisServer.start(options)
    procs.allow(server.pid)
    yield server.url
    server.stop()


def with_db(url: str, db: int) -> str:
    """`url` pointing at logical database `db`."""
    return urlunsplit(urlsplit(url)._replace(path=f"/{db}"))


@pytest.fixture
async def redis_db_url(redis_url: str) -> str:
    """A freshly flushed Redis database for this test alone."""
    url = with_db(redis_url, next(_next_db) % (REDIS_DATABASES - 1) + 1)
    client = await connect_redis(RedisSettings(url=url))
    try:
        await client.flushdb()
    finally:
        await client.aclose()
    return url


@pytest.fixture
async def redis_client(redis_db_url: str) -> AsyncIterator[Redis]:
    client = await connect_redis(RedisSettings(url=redis_db_url))
    yield client
    await client.aclose()


@pytest.fixture
async def bus(nats_url: str) -> AsyncIterator[Bus]:
    """A NATS connection; every stream earlier tests created is deleted first."""
    connection = await connect(NatsSettings(url=nats_url, name="test"))
    for info in await connection.js.streams_info():
        await connection.js.delete_stream(str(info.config.name))
    yield connection
    await connection.close()


@pytest.fixture
async def ready_bus(bus: Bus) -> Bus:
    """`bus` with Sluice's streams and consumers created, and empty.

    Purged after they are created: in a fresh-check run of the suite on a loaded machine,
    a stream created again right after the previous test deleted it held that test's
    messages (nats-server created it anew, and the old messages were in it)."""
    await topology.ensure(bus)
    for stream in (subjects.WORK_STREAM, subjects.EVENTS_STREAM):
        await bus.js.purge_stream(stream)
    return bus
