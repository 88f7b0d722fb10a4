"""Object URLs are built only from names that address exactly that object."""

import pytest

from app.cluster.errors import Invalid, Target
from app.cluster.paths import collection_path, object_path
from app.cluster.resources import ResourceType

DEPLOYMENTS = ResourceType(
    "apps", "v1", "Deployment", "deployments", True, subresources=frozenset({"status"})
)
NAMESPACES = ResourceType("", "v1", "Namespace", "namespaces", False)
CONFIGMAPS = ResourceType("", "v1", "ConfigMap", "configmaps", True)
TARGET = Target("get", "Deployment", "apps/v1")


@pytest.mark.parametrize(
    ("rt", "namespace", "name", "sub", "expected"),
    [
        pytest.param(
            DEPLOYMENTS,
            "shop",
            "web",
            "",
            "/apis/apps/v1/namespaces/shop/deployments/web",
            id="named-group-namespaced",
        ),
        pytest.param(
            DEPLOYMENTS,
            "shop",
            "web",
            "status",
            "/apis/apps/v1/namespaces/shop/deployments/web/status",
            id="status-subresource",
        ),
        pytest.param(
            CONFIGMAPS, "shop", "cfg", "", "/api/v1/namespaces/shop/configmaps/cfg", id="core-group"
        ),
        pytest.param(NAMESPACES, "", "shop", "", "/api/v1/namespaces/shop", id="cluster-scoped"),
        pytest.param(
            NAMESPACES,
            "ignored",
            "shop",
            "",
            "/api/v1/namespaces/shop",
            id="cluster-scoped-ignores-namespace",
        ),
    ],
)
def test_object_paths(rt: ResourceType, namespace: str, name: str, sub: str, expected: str) -> None:
    assert object_path(rt, namespace, name, TARGET, sub) == expected


def test_collection_without_namespace_lists_all_namespaces() -> None:
    assert collection_path(DEPLOYMENTS, "", TARGET) == "/apis/apps/v1/deployments"


@pytest.mark.parametrize(
    ("namespace", "name", "problem"),
    [
        pytest.param("shop", "..", "metadata.name '..' is not allowed", id="dot-dot-name"),
        pytest.param("shop", ".", "metadata.name '.' is not allowed", id="dot-name"),
        pytest.param("shop", "a/../../b", "may not contain '/'", id="slash-in-name"),
        pytest.param("shop", "a%2Fb", "may not contain '/' or '%'", id="percent-in-name"),
        pytest.param("..", "web", "metadata.namespace '..' is not allowed", id="dot-dot-namespace"),
        pytest.param("shop", "", "metadata.name is empty", id="empty-name"),
        pytest.param("shop", "a b", "whitespace or control", id="space-in-name"),
        pytest.param("shop", "x" * 254, "longer than 253", id="too-long"),
        pytest.param("", "web", "namespaced kind", id="namespaced-without-namespace"),
    ],
)
def test_unsafe_names_are_refused(namespace: str, name: str, problem: str) -> None:
    with pytest.raises(Invalid) as caught:
        object_path(DEPLOYMENTS, namespace, name, TARGET)
    assert problem in str(caught.value)


def test_unknown_subresource_is_refused() -> None:
    with pytest.raises(Invalid, match="no 'scale' subresource"):
        object_path(DEPLOYMENTS, "shop", "web", TARGET, "scale")
