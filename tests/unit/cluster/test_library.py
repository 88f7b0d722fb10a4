"""kubernetes-asyncio with its generated classes deferred: code that asks for one still
gets the whole package (tests/unit/cli/test_worker_footprint.py shows a worker does not)."""

import subprocess
import sys


def _run(probe: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return out.stdout.strip()


def test_the_generated_classes_are_still_there_for_code_that_asks() -> None:
    probe = (
        "import app.cluster; "
        "from kubernetes_asyncio import client, config, watch, __version__; "
        "from kubernetes_asyncio.dynamic import DynamicClient; "
        "from kubernetes_asyncio.client.models import V1Pod; "
        "from app.cluster.library import ApiClient; "
        "print(client.CoreV1Api.__name__, client.V1Pod is V1Pod, client.ApiClient is ApiClient, "
        "bool(__version__), config.load_kube_config.__name__, watch.Watch.__name__)"
    )

    assert _run(probe) == "CoreV1Api True True True load_kube_config Watch"
