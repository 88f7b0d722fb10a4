"""`kubectl logs` against simulated pods: what each container's log says, and follow."""

import asyncio
import os
import re

import pytest

from app.localcluster import LocalCluster
from tests.integration.localcluster.conftest import Http
from tests.support.fixtures_cluster import Kubectl

pytestmark = pytest.mark.kubectl

FAIL = "localcluster.sluice.dev/fail"
TWO_CONTAINERS = """
apiVersion: v1
kind: Pod
metadata: {name: pair}
spec:
  containers:
  - {name: app, image: nginx:1.25, ports: [{containerPort: 8080}]}
  - {name: sidecar, image: envoy:1.30, command: [envoy, -c, /etc/envoy.yaml]}
"""


async def test_logs_of_a_deployment_and_a_job(kubectl: Kubectl) -> None:
    await kubectl("create", "deployment", "web", "--image=nginx:1.25", "--port=80")
    await kubectl("create", "job", "hello", "--image=busybox", "--", "echo", "hello world")
    await kubectl("wait", "--for=condition=Available", "deploy/web", "--timeout=10s")
    await kubectl("wait", "--for=condition=Complete", "job/hello", "--timeout=10s")
    web = (await kubectl("logs", "deploy/web")).stdout.splitlines()
    assert web == [
        "localcluster: container nginx started from image nginx:1.25",
        "localcluster: listening on 80/TCP",
        "localcluster: ready",
    ]
    hello = (await kubectl("logs", "job/hello")).stdout.splitlines()
    assert "hello world" in hello
    assert hello[-1] == "localcluster: exited with code 0 (Completed)"
    assert (await kubectl("logs", "deploy/web", "--tail=1")).stdout == "localcluster: ready\n"
    stamped = (await kubectl("logs", "deploy/web", "--timestamps")).stdout.splitlines()
    assert all(
        re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z localcluster: ", s) for s in stamped
    )
    limited = await kubectl("logs", "deploy/web", "--limit-bytes=12")
    assert limited.stdout == "localcluster"


async def test_containers_are_chosen_and_checked(kubectl: Kubectl, http: Http) -> None:
    await kubectl("apply", "-f", "-", stdin=TWO_CONTAINERS)
    await kubectl("wait", "--for=condition=Ready", "pod/pair", "--timeout=10s")
    sidecar = (await kubectl("logs", "pair", "-c", "sidecar")).stdout.splitlines()
    assert sidecar[1] == "localcluster: running envoy -c /etc/envoy.yaml"
    unknown = await kubectl("logs", "pair", "-c", "nope", check=False)
    assert unknown.returncode == 1
    assert "container nope is not valid for pod pair" in unknown.stderr
    unnamed = await http.get("/api/v1/namespaces/default/pods/pair/log")
    assert unnamed.status == 400
    assert "choose one of: [app sidecar]" in unnamed.body["message"]


async def test_a_pod_that_has_not_started_has_no_log_yet(
    kubectl: Kubectl, local_cluster: LocalCluster
) -> None:
    local_cluster.timing.delay_seconds = 60
    await kubectl("run", "slow", "--image=nginx")
    waiting = await kubectl("logs", "slow", check=False)
    assert waiting.returncode == 1
    assert 'container "slow" in pod "slow" is waiting to start: ContainerCreating' in waiting.stderr


async def test_previous_shows_a_crash_looping_container(kubectl: Kubectl) -> None:
    await kubectl("run", "crashy", "--image=app:1", f"--annotations={FAIL}=true")
    await kubectl("run", "fine", "--image=app:1")
    await kubectl("wait", "--for=condition=Ready", "pod/fine", "--timeout=10s")
    await kubectl(
        "wait",
        "--for=jsonpath={.status.containerStatuses[0].restartCount}=3",
        "pod/crashy",
        "--timeout=10s",
    )
    crashed = (await kubectl("logs", "crashy", "--previous")).stdout
    assert f"localcluster: error: failing on purpose (lever {FAIL})" in crashed
    none = await kubectl("logs", "fine", "--previous", check=False)
    assert 'previous terminated container "fine" in pod "fine" not found' in none.stderr


async def test_follow_ends_when_the_pod_is_deleted(kubectl: Kubectl) -> None:
    await kubectl("run", "web", "--image=nginx")
    await kubectl("wait", "--for=condition=Ready", "pod/web", "--timeout=10s")
    env = {**os.environ, "HOME": str(kubectl.home), "KUBECONFIG": str(kubectl.kubeconfig)}
    proc = await asyncio.create_subprocess_exec(
        kubectl.binary, "logs", "-f", "web", stdout=asyncio.subprocess.PIPE, env=env
    )
    assert proc.stdout is not None
    try:
        seen = [(await asyncio.wait_for(proc.stdout.readline(), 10)).decode() for _ in range(2)]
        assert seen == [
            "localcluster: container web started from image nginx\n",
            "localcluster: ready\n",
        ]
        await kubectl("delete", "pod", "web", "--wait=false")
        rest = (await asyncio.wait_for(proc.stdout.read(), 10)).decode()
        assert rest == "localcluster: received SIGTERM, container web stopping\n"
        assert await asyncio.wait_for(proc.wait(), 10) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
