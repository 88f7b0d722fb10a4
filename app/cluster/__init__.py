"""Sluice's client for Kubernetes clusters: real ones and the local cluster alike.

What it decides, and why:

- **How to reach a cluster** (`config`): a kubeconfig file and context, or the pod's
  service account. Credentials that would run a command or call an identity provider
  are refused unless the operator allows them (`allow_exec=True`).
- **Which URL serves a kind** (`discovery`, `resources`): discovery is fetched once per
  cluster (aggregated format first), kept, and refreshed when a kind is missing or a CRD
  is written, so a CRD and its custom resources can be synced back to back.
- **How an object is written** (`cluster`): server-side apply as field manager `sluice`
  with force by default; or kubectl's client-side apply keeping the last-applied
  annotation; replace, create, patch, delete with a propagation policy; all with
  `dry_run`. Objects go in and come out as plain dicts: raw JSON, no typed models.
- **How changes are followed** (`watching`, `watch_events`): list, then watch from the
  list's resourceVersion; resume after a dropped connection, relist on 410 and deliver
  only the differences, so consumers see every change exactly once.
- **What a failure means** (`errors`): one small hierarchy mapped from HTTP status in
  one place: NotFound, Conflict, Invalid, Forbidden, Unauthorized, Unavailable (the only
  retriable one), Expired; every message names the call and carries no credentials.

Every call has a deadline (`ClusterSettings.request_timeout`, or `time_limit=`), and
every response a size limit.
"""

from app.cluster.cluster import Cluster
from app.cluster.config import ClusterConfig, load_in_cluster, load_kubeconfig, load_kubeconfig_dict
from app.cluster.errors import (
    Cause,
    ClusterError,
    ConfigError,
    Conflict,
    Expired,
    Forbidden,
    Invalid,
    NotFound,
    Unauthorized,
    Unavailable,
    UnknownKind,
)
from app.cluster.options import (
    ApplyMode,
    FieldValidation,
    ObjectList,
    PatchType,
    Preconditions,
)
from app.cluster.resources import ResourceType
from app.cluster.settings import FIELD_MANAGER, ClusterSettings
from app.cluster.watch_events import EventType, Synced, WatchEvent

__all__ = [
    "FIELD_MANAGER",
    "ApplyMode",
    "Cause",
    "Cluster",
    "ClusterConfig",
    "ClusterError",
    "ClusterSettings",
    "ConfigError",
    "Conflict",
    "EventType",
    "Expired",
    "FieldValidation",
    "Forbidden",
    "Invalid",
    "NotFound",
    "ObjectList",
    "PatchType",
    "Preconditions",
    "ResourceType",
    "Synced",
    "Unauthorized",
    "Unavailable",
    "UnknownKind",
    "WatchEvent",
    "load_in_cluster",
    "load_kubeconfig",
    "load_kubeconfig_dict",
]
