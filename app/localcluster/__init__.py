"""The local cluster: an embedded Kubernetes-API-compatible server for laptops and CI.

It decides what a Kubernetes API server decides for the clients Sluice and its users
run (kubectl v1.32, kubernetes-asyncio): which types exist (built-ins, Argo CD's CRDs,
CRDs written at run time), what each write stores (uid, resourceVersion from one global
counter, generation, managedFields, defaults, validation, unknown fields refused or
dropped as `fieldValidation` asks: `fieldvalidation`, `known_fields`), who sees which
change (watches fed from one change log, bounded history, 410 for compacted versions),
and when objects go away (finalizers, propagation policies, garbage collection,
namespaces terminating).
Simulated controllers then move workloads through their lifecycle so health has
something to assess. The contract is docs/local-cluster.md; the measure of correctness
is the real client.

Layout: `api/` the object semantics every writer shares, `web/` the HTTP surface,
`system/` the reconcilers the API server itself runs (garbage collector, namespace and
CRD cleanup), `controllers/` the simulated workload controllers, `cluster.py` the
lifecycle (`LocalCluster`).
"""

from app.localcluster.cluster import LocalCluster
from app.localcluster.settings import ControllerSettings, LocalClusterSettings, WatchSettings

__all__ = ["ControllerSettings", "LocalCluster", "LocalClusterSettings", "WatchSettings"]
