"""The environment's proxy settings apply to the API server, read once when a Cluster opens."""

import pytest
from kubernetes_asyncio.client import Configuration

from app.cluster import Cluster
from app.cluster.config import ClusterConfig

SERVER = "https://api.example.invalid:6443"
PROXY = "http://proxy.example.invalid:3128"

CASES = [
    # rule, environment, proxy used for the server
    ("no proxy variables: direct", {}, None),
    ("HTTPS_PROXY applies to an https server", {"HTTPS_PROXY": PROXY}, PROXY),
    ("lower-case https_proxy too", {"https_proxy": PROXY}, PROXY),
    ("HTTP_PROXY alone does not apply to https", {"HTTP_PROXY": PROXY}, None),
    (
        "NO_PROXY exempts the server",
        {"HTTPS_PROXY": PROXY, "NO_PROXY": "api.example.invalid"},
        None,
    ),
]


def _config() -> ClusterConfig:
    configuration = Configuration()
    configuration.host = SERVER
    return ClusterConfig(name="test", server=SERVER, configuration=configuration)


@pytest.mark.parametrize(("env", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
async def test_proxy_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], expected: str | None
) -> None:
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    async with Cluster(_config()) as cluster:
        rest = cluster._api.rest_client
        assert (rest.proxy or None) == expected
        # Read once: the session itself no longer looks at the environment per request.
        assert rest.pool_manager.trust_env is False
