"""The real kubectl against the local cluster: the commands users run every day."""

import pytest
import yaml

from app.localcluster import LocalCluster
from tests.support.fixtures_cluster import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl


def deployment_yaml(replicas: int = 2, image: str = "nginx:1.25") -> str:
    return f"""
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers:
      - name: web
        image: {image}
"""


CRD_YAML = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, shortNames: [wd]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
"""


async def test_get_prints_the_table_users_know(kubectl: Kubectl) -> None:
    await kubectl("apply", "-f", "-", stdin=deployment_yaml())
    await kubectl("wait", "--for=condition=Available", "deployment/web", "--timeout=10s")
    out = (await kubectl("get", "deployments")).stdout.splitlines()
    assert out[0].split() == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]
    assert out[1].split()[:4] == ["web", "2/2", "2", "2"]
    pods = (await kubectl("get", "pods", "-l", "app=web", "--no-headers")).stdout.splitlines()
    assert len(pods) == 2 and all(line.split()[1:3] == ["1/1", "Running"] for line in pods)


async def test_client_side_apply_twice_with_a_change(kubectl: Kubectl) -> None:
    assert (
        "deployment.apps/web created"
        in (await kubectl("apply", "-f", "-", stdin=deployment_yaml())).stdout
    )
    assert "unchanged" in (await kubectl("apply", "-f", "-", stdin=deployment_yaml())).stdout
    changed = await kubectl(
        "apply", "-f", "-", stdin=deployment_yaml(replicas=3, image="nginx:1.26")
    )
    assert "deployment.apps/web configured" in changed.stdout
    live = yaml.safe_load((await kubectl("get", "deployment", "web", "-o", "yaml")).stdout)
    assert live["spec"]["replicas"] == 3
    assert live["spec"]["template"]["spec"]["containers"] == [
        {"name": "web", "image": "nginx:1.26"}
    ]
    assert live["metadata"]["generation"] == 2
    applied = live["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
    assert '"replicas":3' in applied


async def test_server_side_apply_conflicts_then_force_takes_ownership(kubectl: Kubectl) -> None:
    await kubectl("apply", "-f", "-", stdin=deployment_yaml())
    refused = await kubectl(
        "apply", "--server-side", "-f", "-", stdin=deployment_yaml(replicas=5), check=False
    )
    assert refused.returncode == 1
    assert (
        'conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas' in refused.stderr
    )
    forced = await kubectl(
        "apply", "--server-side", "--force-conflicts", "-f", "-", stdin=deployment_yaml(replicas=5)
    )
    assert "serverside-applied" in forced.stdout
    live = yaml.safe_load(
        (await kubectl("get", "deployment", "web", "-o", "yaml", "--show-managed-fields")).stdout
    )
    assert live["spec"]["replicas"] == 5
    owners = {(e["manager"], e["operation"]) for e in live["metadata"]["managedFields"]}
    assert ("kubectl", "Apply") in owners


def changed_lines(diff: str) -> list[str]:
    return sorted(
        line
        for line in diff.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    )


@pytest.mark.parametrize(
    "mode", [pytest.param([], id="client-side"), pytest.param(["--server-side"], id="server-side")]
)
async def test_diff_shows_exactly_the_changed_field(kubectl: Kubectl, mode: list[str]) -> None:
    apply = ["apply", *mode, "-f", "-"]
    await kubectl(*apply, stdin=deployment_yaml(replicas=2))
    # The simulated controller writes status after the apply; let it finish the rollout, or a
    # status write between kubectl's read and its dry run shows up in the diff.
    settled = '{.status.conditions[?(@.type=="Progressing")].reason}=NewReplicaSetAvailable'
    await kubectl("wait", f"--for=jsonpath={settled}", "deployment/web", "--timeout=30s")
    same = await kubectl("diff", *mode, "-f", "-", stdin=deployment_yaml(replicas=2), check=False)
    assert (same.returncode, same.stdout) == (0, "")
    diff = await kubectl("diff", *mode, "-f", "-", stdin=deployment_yaml(replicas=3), check=False)
    assert diff.returncode == 1, diff.stderr
    assert changed_lines(diff.stdout) == [
        "+  generation: 2",
        "+  replicas: 3",
        "-  generation: 1",
        "-  replicas: 2",
    ]
    live = yaml.safe_load((await kubectl("get", "deployment", "web", "-o", "yaml")).stdout)
    assert live["spec"]["replicas"] == 2, "diff must not change the live object"


async def test_delete_waits_for_the_object_and_takes_its_pods(
    kubectl: Kubectl, local_cluster: LocalCluster
) -> None:
    await kubectl("apply", "-f", "-", stdin=deployment_yaml())
    met = await kubectl("wait", "--for=condition=Available", "deployment/web", "--timeout=10s")
    assert "condition met" in met.stdout
    deleted = await kubectl("delete", "-f", "-", stdin=deployment_yaml())
    assert 'deployment.apps "web" deleted' in deleted.stdout

    async def all_gone() -> bool:
        return not local_cluster.objects("replicasets.apps") and not local_cluster.objects("pods")

    await eventually(all_gone, timeout=5, what="ReplicaSets and Pods collected")


async def test_api_resources_lists_a_crd_created_at_run_time(kubectl: Kubectl) -> None:
    before = (await kubectl("api-resources", "--api-group=example.com")).stdout
    assert "widgets" not in before
    await kubectl("apply", "-f", "-", stdin=CRD_YAML)
    await kubectl("wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=10s")
    listed = (
        await kubectl("api-resources", "--api-group=example.com", "--no-headers")
    ).stdout.split()
    assert listed == ["widgets", "wd", "example.com/v1", "true", "Widget"]
    widget = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 3}\n"
    await kubectl("apply", "-f", "-", stdin=widget)
    await kubectl("apply", "-f", "-", stdin=widget.replace("size: 3", "size: 4"))
    got = yaml.safe_load((await kubectl("get", "wd", "w1", "-o", "yaml")).stdout)
    assert got["spec"] == {"size": 4}
    await kubectl("delete", "crd", "widgets.example.com")
    after = (await kubectl("api-resources", "--api-group=example.com")).stdout
    assert "widgets" not in after


async def test_argo_cd_crds_are_installed(kubectl: Kubectl) -> None:
    listed = (
        await kubectl("api-resources", "--api-group=argoproj.io", "--no-headers")
    ).stdout.splitlines()
    assert [line.split()[:2] for line in listed] == [
        ["applications", "app,apps"],
        ["appprojects", "appproj,appprojs"],
    ]


@pytest.mark.parametrize(
    ("flags", "refused"),
    [
        pytest.param((), True, id="validate-true-sends-strict"),
        pytest.param(("--validate=false",), False, id="validate-false-sends-ignore"),
        pytest.param(("--server-side",), True, id="server-side-strict-too"),
    ],
)
async def test_an_unknown_field_is_refused_unless_validation_is_off(
    kubectl: Kubectl, flags: tuple[str, ...], refused: bool
) -> None:
    manifest = deployment_yaml().replace("  replicas: 2", "  replicas: 2\n  replica: 3")
    result = await kubectl("apply", *flags, "-f", "-", stdin=manifest, check=False)
    if refused:
        assert result.returncode != 0
        assert 'strict decoding error: unknown field "spec.replica"' in result.stderr
        assert (await kubectl("get", "deployments", "-o", "name")).stdout == ""
        return
    assert result.returncode == 0, result.stderr
    stored = yaml.safe_load((await kubectl("get", "deployment", "web", "-o", "yaml")).stdout)
    assert stored["spec"]["replicas"] == 2 and "replica" not in stored["spec"]


GET_ALL = """
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox}]
"""


async def test_get_all_lists_every_kind_with_its_columns(kubectl: Kubectl) -> None:
    await kubectl("apply", "-f", "-", stdin=deployment_yaml() + "---" + GET_ALL)
    await kubectl("create", "service", "clusterip", "web", "--tcp=80:80")
    await kubectl("wait", "--for=condition=Available", "deployment/web", "--timeout=10s")
    shown = await kubectl("get", "all")
    assert shown.stderr == ""
    headers = [block.splitlines()[0].split() for block in shown.stdout.strip().split("\n\n")]
    assert headers == [
        ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
        ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"],
        ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
        ["NAME", "DESIRED", "CURRENT", "READY", "AGE"],
        ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"],
        ["NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST", "SCHEDULE", "AGE"],
    ]
    assert "horizontalpodautoscaler.autoscaling/web   Deployment/web   cpu: <unknown>/50%" in (
        shown.stdout
    )
    everywhere = await kubectl("get", "all", "-A", "-o", "wide")
    assert everywhere.stderr == "" and "default     pod/web-" in everywhere.stdout
