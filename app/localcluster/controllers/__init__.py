"""Simulated controllers: workloads move through their lifecycle so health has a subject.

They write status the way kube-controller-manager, the kubelet and a cloud controller
would, after a configurable delay (0 for benchmarks) and subject to the test levers in
`app.localcluster.levers`: Deployment → ReplicaSet → Pods (owned, so garbage collected),
StatefulSet and DaemonSet status, Pods Running and Ready (or Succeeded under a Job), Job
Complete or Failed, PVC Bound, LoadBalancer Services and Ingresses addressed. They
record the Events the real ones record (`events`): ScalingReplicaSet, SuccessfulCreate,
Scheduled, Pulled, Created, Started, Completed, BackOff... Every write goes through the
object API, so clients watch it like any other change.
"""

from app.localcluster.api.server import ApiServer
from app.localcluster.controllers.common import Timing
from app.localcluster.controllers.deployments import DeploymentController
from app.localcluster.controllers.events import EventSink
from app.localcluster.controllers.jobs import JobController
from app.localcluster.controllers.loadbalancers import LoadBalancerController
from app.localcluster.controllers.pods import Kubelet
from app.localcluster.controllers.replicasets import ReplicaSetController
from app.localcluster.controllers.statefulsets import DAEMONSETS, STATEFULSETS, SetController
from app.localcluster.controllers.volumes import ClaimBinder
from app.localcluster.runtime import Runtime


def register(runtime: Runtime, api: ApiServer, timing: Timing) -> None:
    """Run every simulated controller on `runtime`, at the pace `timing` sets."""
    events = EventSink(api)
    runtime.register(DeploymentController(api, timing, events))
    runtime.register(ReplicaSetController(api, events))
    runtime.register(Kubelet(api, timing, events))
    runtime.register(SetController(api, STATEFULSETS, timing))
    runtime.register(SetController(api, DAEMONSETS, timing))
    runtime.register(JobController(api, events))
    runtime.register(ClaimBinder(api, timing))
    runtime.register(LoadBalancerController(api, timing))
