"""`sluice api` and `sluice worker` as production processes: settings from the environment,
metrics on their own port, a clean exit on SIGTERM."""

import asyncio
import os
import signal
import sys
from collections.abc import Mapping
from pathlib import Path

import aiohttp
import pytest

from app.bus.connection import Bus
from app.embedded.process import free_port
from app.localcluster import LocalCluster
from tests.support.logscan import known_secret
from tests.support.waiting import eventually

TOKEN = known_secret("serve-test-token-0123456789", "the API token")


@pytest.fixture
def base_env(
    tmp_path: Path, nats_url: str, redis_db_url: str, local_cluster: LocalCluster, bus: Bus
) -> dict[str, str]:
    """What a production process gets: servers, cluster and state dir by environment (`bus`
    has cleared the streams earlier tests left)."""
    return {
        **os.environ,
        "NATS_URL": nats_url,
        "REDIS_URL": redis_db_url,
        "KUBECONFIG": str(local_cluster.kubeconfig_path),
        "SLUICE_STATE_DIR": str(tmp_path / "state"),
        "SLUICE_LOG_FORMAT": "json",
    }


async def start(args: list[str], env: Mapping[str, str], log: Path) -> asyncio.subprocess.Process:
    with log.open("wb") as out:
        return await asyncio.create_subprocess_exec(
            sys.executable, "-m", "app.cli.main", *args, env=dict(env), stdout=out, stderr=out
        )


async def get(url: str, token: str = "") -> tuple[int, str]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as r:
            return r.status, await r.text()
    except aiohttp.ClientError:
        return 0, ""


async def stop(process: asyncio.subprocess.Process) -> int:
    process.send_signal(signal.SIGTERM)
    return await asyncio.wait_for(process.wait(), 30)


@pytest.mark.parametrize("component", ["api", "worker compare"])
async def test_a_component_serves_until_sigterm_with_metrics_on_its_port(
    tmp_path: Path, base_env: dict[str, str], component: str
) -> None:
    api_port, metrics_port = free_port("127.0.0.1"), free_port("127.0.0.1")
    env = dict(
        base_env,
        SLUICE_API_PORT=str(api_port),
        SLUICE_API_TOKENS=TOKEN,
        SLUICE_METRICS_PORT=str(metrics_port),
        SLUICE_METRICS_ADDRESS="127.0.0.1",
    )
    log = tmp_path / "component.log"
    process = await start(component.split(), env, log)
    try:

        async def metrics() -> str:
            status, body = await get(f"http://127.0.0.1:{metrics_port}/metrics")
            return body if status == 200 else ""

        body = await eventually(metrics, timeout=60, what=f"{component} metrics ({log})")
        assert "sluice_reconcile_duration_seconds" in body
        if component == "api":
            assert (await get(f"http://127.0.0.1:{api_port}/healthz"))[0] == 200
            listed = await get(f"http://127.0.0.1:{api_port}/api/v1/applications", TOKEN)
            assert listed[0] == 200
            assert (await get(f"http://127.0.0.1:{api_port}/api/v1/applications"))[0] == 401
    finally:
        code = await stop(process)
    assert code == 0, log.read_text()[-2000:]
    assert '"serve.stopped"' in log.read_text()


async def test_a_bad_metrics_port_is_refused_naming_the_variable(
    tmp_path: Path, base_env: dict[str, str]
) -> None:
    env = dict(base_env, SLUICE_METRICS_PORT="x")
    log = tmp_path / "worker.log"
    process = await start(["worker", "render"], env, log)
    assert await asyncio.wait_for(process.wait(), 30) == 2
    assert "SLUICE_METRICS_PORT='x' is not a port number" in log.read_text()


async def _raw(port: int, request: bytes, *, read: bool = True) -> bytes:
    """Send `request` as is; the answer's first bytes (none when `read` is False: the
    connection is reset instead)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(200), 30) if read else b""
    if not read:
        writer.transport.abort()
    writer.close()
    return answer


async def test_malformed_requests_log_one_redacted_line_each_never_a_traceback(
    tmp_path: Path, base_env: dict[str, str]
) -> None:
    api_port = free_port("127.0.0.1")
    env = dict(base_env, SLUICE_API_PORT=str(api_port), SLUICE_API_TOKENS=TOKEN)
    log = tmp_path / "api.log"
    process = await start(["api"], env, log)
    long_bearer = "Bearer " + TOKEN + "a" * 9000
    long_bare = TOKEN + "b" * 9000
    try:

        async def healthy() -> bool:
            return (await get(f"http://127.0.0.1:{api_port}/healthz"))[0] == 200

        await eventually(healthy, timeout=60, what=f"the API to answer ({log})")
        for value in (long_bearer, long_bare):
            request = (
                f"GET /api/v1/applications HTTP/1.1\r\nHost: x\r\nAuthorization: {value}\r\n\r\n"
            )
            assert (await _raw(api_port, request.encode())).startswith(b"HTTP/1.0 400")
        assert (await _raw(api_port, b"GARBAGE\x00 / HTTP/1.1\r\n\r\n")).startswith(b"HTTP/1.0 400")
        half = f"POST /api/v1/applications HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
        await _raw(api_port, (half + "Content-Length: 100\r\n\r\n{").encode(), read=False)
        stream = f"GET /api/v1/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n\r\n"
        assert (await _raw(api_port, stream.encode())).startswith(b"HTTP/1.1 200")
        assert (await get(f"http://127.0.0.1:{api_port}/healthz"))[0] == 200
    finally:
        code = await stop(process)
    text = log.read_text()
    assert code == 0, text[-2000:]
    lines = text.splitlines()
    assert all(line.startswith("{") for line in lines), [x for x in lines if not x.startswith("{")]
    assert TOKEN not in text
    assert "Traceback" not in text
    too_long = [line for line in lines if "LineTooLong" in line]
    assert len(too_long) == 2, too_long
