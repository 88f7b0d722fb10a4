"""The label values Argo CD's series carry, read from a request and from an Application."""

import pytest

from app.metrics.argocd import label_name
from app.metrics.kube_requests import RequestLabels, request_labels
from app.model import codec
from app.model.application import Application
from app.model.status import ApplicationStatus
from app.store.status import StoredStatus
from workers.watcher.metrics import app_row, repo_label


@pytest.mark.parametrize(
    ("method", "path", "query", "expected"),
    [
        ("GET", "/apis/apps/v1/namespaces/web/deployments/gb", (), ("Get", "deployments", "web")),
        ("GET", "/apis/apps/v1/namespaces/web/deployments", (), ("List", "deployments", "web")),
        ("GET", "/api/v1/pods", (("watch", "true"),), ("Watch", "pods", "")),
        ("GET", "/api/v1/namespaces", (), ("List", "namespaces", "")),
        ("GET", "/api/v1/namespaces/web", (), ("Get", "namespaces", "")),
        ("POST", "/api/v1/namespaces/web/services", (), ("Create", "services", "web")),
        ("PATCH", "/api/v1/namespaces/web/services/gb", (), ("Patch", "services", "web")),
        ("PUT", "/api/v1/namespaces/web/services/gb", (), ("Update", "services", "web")),
        ("DELETE", "/api/v1/namespaces/web/pods/p", (), ("Delete", "pods", "web")),
        ("DELETE", "/api/v1/namespaces/web/pods", (), ("DeleteCollection", "pods", "web")),
        ("GET", "/apis/apps/v1", (), ("List", "", "")),
        ("GET", "/version", (), ("List", "", "")),
    ],
)
def test_a_request_is_labelled_as_argo_cds_transport_labels_it(
    method: str, path: str, query: tuple[tuple[str, str], ...], expected: tuple[str, str, str]
) -> None:
    assert request_labels(method, path, query) == RequestLabels(*expected)


def test_application_labels_become_prometheus_label_names() -> None:
    assert label_name("team") == "label_team"
    assert label_name("app.kubernetes.io/part-of") == "label_app_kubernetes_io_part_of"


def test_repo_label_is_normalized_without_credentials() -> None:
    assert (
        repo_label("https://user:secret@GitHub.com/Org/Repo.git") == "https://github.com/org/repo"
    )
    assert repo_label("not a url at all") == ""


def application(**spec: object) -> Application:
    return Application.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {"name": "gb", "namespace": "sluice", "labels": {"team": "a"}},
            "spec": {
                "project": "web",
                "source": {"repoURL": "https://example.com/r.git", "path": "."},
                "destination": {"name": "in-cluster", "namespace": "web"},
                **spec,
            },
        }
    )


def test_an_app_never_compared_is_unknown_with_no_operation() -> None:
    row = app_row(application(), None, "https://kubernetes.default.svc")
    assert (row.sync_status, row.health_status, row.operation) == ("Unknown", "Unknown", "")
    assert (row.project, row.dest_server, row.dest_namespace) == (
        "web",
        "https://kubernetes.default.svc",
        "web",
    )
    assert not row.autosync_enabled and row.labels == {"team": "a"}


def test_an_automated_app_with_a_sync_requested_shows_the_operation() -> None:
    app = application(syncPolicy={"automated": {}})
    app = Application.from_dict({**codec.encode(app), "operation": {"sync": {}}})
    row = app_row(app, StoredStatus(seq=1, status=ApplicationStatus(), operation=None), "s")
    assert row.autosync_enabled and row.operation == "sync"
