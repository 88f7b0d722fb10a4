"""The in-process local cluster for integration tests, and a kubectl runner for it.

- `local_cluster`: a running `LocalCluster` of its own per test (fast to start: no
  subprocess), with simulated controllers on and a short delay (`FAST_DELAY`), so a
  Deployment becomes Available within a fraction of a second. Its `kubeconfig_path` and
  `url` are what a client needs; `faults`, `drop_watches()`, `timing.delay_seconds` and
  `objects()` are levers.
- `local_cluster_factory`: for tests that need other settings, e.g.
  `async with local_cluster_factory(delay_seconds=2) as cluster: ...`.
- `kubectl`: runs the real kubectl against `local_cluster` with its own KUBECONFIG and a
  temporary HOME, so its discovery and OpenAPI caches never leak between tests.
"""

import asyncio
import contextlib
import os
import shutil
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from app.localcluster import ControllerSettings, LocalCluster, LocalClusterSettings, WatchSettings

FAST_DELAY = 0.05
"""Seconds the simulated controllers take in tests (0 would hide ordering bugs)."""


def cluster_settings(tmp_path: Path, **changes: Any) -> LocalClusterSettings:
    """Settings for a test cluster: kubeconfig under tmp_path, fast controllers, bookmarks
    every second; `delay_seconds` and `controllers_enabled` change the controllers."""
    controllers = ControllerSettings(
        enabled=changes.pop("controllers_enabled", True),
        delay_seconds=changes.pop("delay_seconds", FAST_DELAY),
    )
    base = LocalClusterSettings(
        kubeconfig_path=tmp_path / "kubeconfig",
        controllers=controllers,
        watch=WatchSettings(bookmark_interval=1.0),
    )
    return replace(base, **changes)


@pytest.fixture
async def local_cluster(tmp_path: Path) -> AsyncIterator[LocalCluster]:
    async with LocalCluster(cluster_settings(tmp_path)) as cluster:
        yield cluster


@pytest.fixture
def local_cluster_factory(
    tmp_path: Path,
) -> Callable[..., contextlib.AbstractAsyncContextManager[LocalCluster]]:
    counter = iter(range(1_000_000))

    @contextlib.asynccontextmanager
    async def make(**changes: Any) -> AsyncIterator[LocalCluster]:
        directory = tmp_path / f"cluster-{next(counter)}"
        async with LocalCluster(cluster_settings(directory, **changes)) as cluster:
            yield cluster

    return make


@dataclass(frozen=True)
class KubectlResult:
    returncode: int
    stdout: str
    stderr: str


@dataclass(frozen=True)
class Kubectl:
    """The real kubectl with an isolated KUBECONFIG and HOME; await it with arguments."""

    kubeconfig: Path
    home: Path
    binary: str

    async def __call__(
        self, *args: str, stdin: str | None = None, check: bool = True, timeout: float = 30.0
    ) -> KubectlResult:
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(self.home),
            "KUBECONFIG": str(self.kubeconfig),
            "KUBECTL_EXTERNAL_DIFF": "diff -u -N",
        }
        proc = await asyncio.create_subprocess_exec(
            self.binary,
            *args,
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
        try:
            out, err = await asyncio.wait_for(
                proc.communicate(stdin.encode() if stdin is not None else None), timeout
            )
        except TimeoutError:
            proc.kill()
            await proc.wait()
            raise AssertionError(f"kubectl {' '.join(args)} did not finish in {timeout}s") from None
        result = KubectlResult(proc.returncode or 0, out.decode(), err.decode())
        if check and result.returncode != 0:
            raise AssertionError(
                f"kubectl {' '.join(args)} exited {result.returncode}\n"
                f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
            )
        return result


@pytest.fixture
def kubectl(local_cluster: LocalCluster, tmp_path: Path) -> Kubectl:
    binary = shutil.which("kubectl")
    if binary is None:
        pytest.fail("kubectl is not on PATH: run .ci/install-kubectl (CI installs it)")
    home = tmp_path / "kubectl-home"
    home.mkdir()
    return Kubectl(local_cluster.kubeconfig_path, home, binary)
