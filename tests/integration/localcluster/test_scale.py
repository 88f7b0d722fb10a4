"""The scale subresource, as `kubectl scale` and autoscalers use it."""

import pytest
import yaml

from app.localcluster import LocalCluster
from tests.integration.localcluster.conftest import DEPLOYMENTS, Http, deployment
from tests.support.fixtures_cluster import Kubectl
from tests.support.waiting import eventually

STATEFULSET = """
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 1
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: postgres:16}]}
"""

SCALABLE_CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: workers.example.com}
spec:
  group: example.com
  names: {kind: Worker, plural: workers}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
    subresources:
      scale: {specReplicasPath: .spec.size, statusReplicasPath: .status.size}
"""


@pytest.mark.kubectl
async def test_kubectl_scale_changes_the_pods(
    kubectl: Kubectl, local_cluster: LocalCluster
) -> None:
    await kubectl("create", "deployment", "web", "--image=nginx", "--replicas=1")
    scaled = await kubectl("scale", "deploy/web", "--replicas=3")
    assert scaled.stdout.strip() == "deployment.apps/web scaled"

    async def three_pods() -> bool:
        return len(local_cluster.objects("pods", "default")) == 3

    await eventually(three_pods, timeout=10, what="three pods")
    await kubectl("wait", "--for=jsonpath={.status.readyReplicas}=3", "deploy/web", "--timeout=10s")
    shown = await kubectl("get", "deploy/web", "-o", "yaml", "--show-managed-fields")
    live = yaml.safe_load(shown.stdout)
    assert live["metadata"]["generation"] == 2
    managers = {(e["manager"], e.get("subresource", "")) for e in live["metadata"]["managedFields"]}
    assert ("kubectl", "scale") in managers


@pytest.mark.kubectl
async def test_kubectl_scale_checks_current_replicas(kubectl: Kubectl) -> None:
    await kubectl("create", "deployment", "web", "--image=nginx", "--replicas=2")
    refused = await kubectl(
        "scale", "deploy/web", "--replicas=5", "--current-replicas=3", check=False
    )
    assert refused.returncode == 1
    assert "Expected replicas to be 3, was 2" in refused.stderr
    await kubectl("scale", "deploy/web", "--replicas=5", "--current-replicas=2")
    replicas = await kubectl("get", "deploy/web", "-o", "jsonpath={.spec.replicas}")
    assert replicas.stdout == "5"


@pytest.mark.kubectl
async def test_kubectl_scale_statefulsets_and_custom_resources(kubectl: Kubectl) -> None:
    await kubectl("apply", "-f", "-", stdin=STATEFULSET)
    await kubectl("scale", "statefulset/db", "--replicas=3")
    await kubectl("wait", "--for=jsonpath={.status.readyReplicas}=3", "sts/db", "--timeout=10s")
    await kubectl("apply", "-f", "-", stdin=SCALABLE_CRD)
    await kubectl("wait", "--for=condition=Established", "crd/workers.example.com")
    worker = "apiVersion: example.com/v1\nkind: Worker\nmetadata: {name: w}\nspec: {size: 1}\n"
    await kubectl("apply", "-f", "-", stdin=worker)
    await kubectl("scale", "worker/w", "--replicas=4")
    size = await kubectl("get", "worker/w", "-o", "jsonpath={.spec.size}")
    assert size.stdout == "4"


async def test_the_scale_view_and_its_refusals(http: Http) -> None:
    await http.ok("POST", DEPLOYMENTS, deployment(replicas=2))
    view = await http.ok("GET", f"{DEPLOYMENTS}/web/scale")
    assert view["kind"] == "Scale" and view["apiVersion"] == "autoscaling/v1"
    assert view["spec"] == {"replicas": 2}
    assert view["status"]["selector"] == "app=web"
    negative = {**view, "spec": {"replicas": -1}}
    refused = await http.put(f"{DEPLOYMENTS}/web/scale", negative)
    assert (refused.status, refused.body["reason"]) == (422, "Invalid")
    assert "spec.replicas" in refused.body["message"]
    stale = {**view, "metadata": {**view["metadata"], "resourceVersion": "1"}, "spec": {}}
    conflict = await http.put(f"{DEPLOYMENTS}/web/scale", stale)
    assert (conflict.status, conflict.body["reason"]) == (409, "Conflict")
    missing = await http.get("/api/v1/namespaces/default/configmaps/x/scale")
    assert missing.status == 404
    zero = await http.ok(
        "PATCH",
        f"{DEPLOYMENTS}/web/scale",
        {"spec": {"replicas": 0}},
        content_type="application/merge-patch+json",
    )
    assert (
        zero["spec"] == {}
        and zero["metadata"]["resourceVersion"] != view["metadata"]["resourceVersion"]
    )
    stored = await http.ok("GET", f"{DEPLOYMENTS}/web")
    assert stored["spec"]["replicas"] == 0


async def test_plain_discovery_names_scale_as_autoscaling_v1(http: Http) -> None:
    listed = await http.ok("GET", "/apis/apps/v1")
    scale = next(r for r in listed["resources"] if r["name"] == "deployments/scale")
    assert (scale["group"], scale["version"], scale["kind"]) == ("autoscaling", "v1", "Scale")
