"""Client CPU per request of Sluice's cluster client against kubernetes-asyncio's call_api.

A local cluster runs in its own process (controller delay 0). In this process one
`app.cluster.Cluster` sends rounds of requests, 16 at a time: GETs of a ConfigMap and
server-side dry-run applies of it (30 data keys, 20 labels: the size of an app's objects).
Each round is sent twice, alternating: through the cluster client as it is (requests on
the ApiClient's session, the body encoded once by orjson) and, as the baseline, with the
transport's send swapped for `ApiClient.call_api` (how the client sent them before: the
body walked by `sanitize_for_serialization`, then encoded by the standard library). The
figure is this process's CPU time per request (`time.process_time`), the median over
the rounds, and its ratio to the baseline's; the server's CPU is not in it.
"""

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from app import log_setup
from app.cluster import Cluster, load_kubeconfig
from app.cluster.transport import Transport
from app.metrics.argocd import count_k8s_request
from bench.support import local_cluster
from bench.support.figures import Line, load_average, report

CONCURRENCY = 16


async def _call_api_send(
    self: Transport,
    method: str,
    path: str,
    *,
    query: Any,
    body: Any,
    content_type: str,
    accept: str,
    client_timeout: Any,
) -> Any:
    """The baseline: the request as `ApiClient.call_api` sends it."""
    api = self._api
    resp = await api.call_api(
        path,
        method,
        query_params=list(query),
        header_params={"Accept": accept, "Content-Type": content_type},
        body=body,
        auth_settings=["BearerToken"],
        _preload_content=False,
        _request_timeout=client_timeout,
    )
    count_k8s_request(self._server, method, path, query, resp.status)
    return resp


def config_map() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "bench",
            "namespace": "default",
            "labels": {f"label-{i}": f"value-{i}" for i in range(20)},
        },
        "data": {f"key-{i}": "v" * 50 for i in range(30)},
    }


async def per_request(cluster: Cluster, requests: int) -> float:
    """CPU seconds of this process per request over `requests` GETs and dry-run applies."""
    limit = asyncio.Semaphore(CONCURRENCY)
    body = config_map()

    async def get() -> None:
        async with limit:
            await cluster.get("v1", "ConfigMap", "bench", "default")

    async def dry_run() -> None:
        async with limit:
            await cluster.apply(body, dry_run=True)

    started = time.process_time()
    await asyncio.gather(*(get() for _ in range(requests // 2)))
    await asyncio.gather(*(dry_run() for _ in range(requests // 2)))
    return (time.process_time() - started) / (requests // 2 * 2)


async def measure(kubeconfig: Path, rounds: int, requests: int) -> tuple[list[float], list[float]]:
    ours, baseline = [], []
    own_send = Transport._send
    async with Cluster(await load_kubeconfig(kubeconfig)) as cluster:
        await cluster.apply(config_map())
        await per_request(cluster, requests)
        try:
            for _ in range(rounds):
                Transport._send = own_send  # type: ignore[method-assign]
                ours.append(await per_request(cluster, requests))
                Transport._send = _call_api_send  # type: ignore[method-assign]
                baseline.append(await per_request(cluster, requests))
        finally:
            Transport._send = own_send  # type: ignore[method-assign]
    return ours, baseline


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench cluster_client", description=__doc__)
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds")
    parser.add_argument("--requests", type=int, default=1000, help="requests per round")
    args = parser.parse_args(argv)
    log_setup.configure(level="warning")
    with tempfile.TemporaryDirectory(prefix="sluice-bench-") as tmp:
        kubeconfig = Path(tmp) / "kubeconfig"
        try:
            with local_cluster.running(kubeconfig):
                ours, baseline = asyncio.run(measure(kubeconfig, args.rounds, args.requests))
        except RuntimeError as e:
            print(e, file=sys.stderr)
            return 1
    mine, theirs = statistics.median(ours), statistics.median(baseline)
    report(
        "cluster_client: client CPU per request (GET and server-side dry-run apply, "
        f"{CONCURRENCY} in flight)",
        "local cluster in its own process, controller delay 0; this process's CPU only",
        [
            Line("Sluice's client", f"{mine * 1e6:.0f} us per request = {mine / theirs:.2f}x"),
            Line("baseline", f"{theirs * 1e6:.0f} us per request (ApiClient.call_api)"),
            Line("rounds", f"{args.rounds} x {args.requests} requests, alternating"),
            Line("load average", f"{load_average()} (1 / 5 min) at the end"),
        ],
        "the same client with kubernetes-asyncio's call_api sending, same run, same server",
        ["python", "-m", "bench", "cluster_client", *argv],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
