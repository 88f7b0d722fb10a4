"""What a worker process loads: the parts of its libraries it uses, not the rest (each
module left out is memory saved in every worker replica)."""

import subprocess
import sys


def test_a_worker_loads_no_generated_kubernetes_class_and_no_jwt_signer() -> None:
    probe = (
        "import sys, app.cli.worker, workers.registry; "
        "print(' '.join(m for m in sys.modules if m.startswith(('kubernetes_asyncio', 'jwt'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    loaded = set(out.stdout.split())

    assert {"kubernetes_asyncio.client.api_client", "kubernetes_asyncio.config.kube_config"} <= (
        loaded
    )
    assert not {m for m in loaded if ".client.models." in m or ".client.api." in m}
    assert len(loaded) < 30
    assert "jwt" not in loaded


def test_a_worker_loads_its_own_package_and_not_the_others() -> None:
    probe = (
        "import sys, app.cli.worker; from workers import registry; "
        "registry.builder('sync'); "
        "print(' '.join(m for m in sys.modules if m.startswith(('workers.', 'aiosmtplib'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    loaded = set(out.stdout.split())

    assert "workers.sync.sync_worker" in loaded
    others = ("workers.watcher", "workers.render", "workers.compare", "workers.notifications")
    assert not {m for m in loaded if m.startswith(others)}
    assert "aiosmtplib" not in loaded, "the notifications worker's mail client is loaded"
