"""The strategy table: how each listed Kubernetes field merges, looked up by path."""

import pytest

from app.engine.merge import GroupVersionKind, supports_strategic_merge
from app.engine.merge.patch_strategies import root_for
from app.engine.merge.schema import ListType, Node, PatchStrategy


def lookup(gvk: GroupVersionKind, path: str) -> Node:
    """The node at a dotted path; `[]` steps into list items."""
    node = root_for(gvk)
    for step in path.split("."):
        if step.endswith("[]"):
            node = node.child(step[:-2]).element
        else:
            node = node.child(step)
    return node


POD_TEMPLATE = "spec.template.spec"
DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")

MERGED_BY_KEY = [
    pytest.param(
        DEPLOYMENT, f"{POD_TEMPLATE}.containers", "name", ("name",), id="containers-by-name"
    ),
    pytest.param(
        DEPLOYMENT, f"{POD_TEMPLATE}.initContainers", "name", ("name",), id="init-containers"
    ),
    pytest.param(
        GroupVersionKind("", "v1", "Pod"),
        "spec.ephemeralContainers",
        "name",
        ("name",),
        id="ephemeral-containers",
    ),
    pytest.param(
        DEPLOYMENT, f"{POD_TEMPLATE}.containers[].env", "name", ("name",), id="env-by-name"
    ),
    pytest.param(DEPLOYMENT, f"{POD_TEMPLATE}.volumes", "name", ("name",), id="volumes-by-name"),
    pytest.param(
        DEPLOYMENT, f"{POD_TEMPLATE}.imagePullSecrets", "name", ("name",), id="image-pull-secrets"
    ),
    pytest.param(DEPLOYMENT, f"{POD_TEMPLATE}.hostAliases", "ip", ("ip",), id="host-aliases-by-ip"),
    pytest.param(
        DEPLOYMENT,
        f"{POD_TEMPLATE}.containers[].volumeMounts",
        "mountPath",
        ("mountPath",),
        id="volume-mounts-by-mount-path",
    ),
    pytest.param(
        DEPLOYMENT,
        f"{POD_TEMPLATE}.containers[].ports",
        "containerPort",
        ("containerPort", "protocol"),
        id="container-ports-by-container-port",
    ),
    pytest.param(
        GroupVersionKind("", "v1", "Service"),
        "spec.ports",
        "port",
        ("port", "protocol"),
        id="service-ports-by-port",
    ),
    pytest.param(DEPLOYMENT, "status.conditions", "type", ("type",), id="conditions-by-type"),
    pytest.param(DEPLOYMENT, "metadata.ownerReferences", "uid", ("uid",), id="owner-references"),
    pytest.param(
        DEPLOYMENT,
        f"{POD_TEMPLATE}.topologySpreadConstraints",
        "topologyKey",
        ("topologyKey", "whenUnsatisfiable"),
        id="topology-spread-constraints",
    ),
]


@pytest.mark.parametrize(("gvk", "path", "merge_key", "keys"), MERGED_BY_KEY)
def test_lists_merged_by_key(
    gvk: GroupVersionKind, path: str, merge_key: str, keys: tuple[str, ...]
) -> None:
    node = lookup(gvk, path)
    assert (node.strategy, node.merge_key) == (PatchStrategy.MERGE, merge_key)
    assert (node.list_type, node.keys) == (ListType.MAP, keys)


def test_ports_default_their_protocol_key_to_tcp() -> None:
    assert lookup(DEPLOYMENT, f"{POD_TEMPLATE}.containers[].ports").key_defaults == {
        "protocol": "TCP"
    }


OTHER_RULES = [
    pytest.param(
        "metadata.finalizers", PatchStrategy.MERGE, ListType.SET, id="finalizers-merged-as-set"
    ),
    pytest.param(
        f"{POD_TEMPLATE}.tolerations",
        PatchStrategy.DEFAULT,
        ListType.ATOMIC,
        id="tolerations-replaced",
    ),
    pytest.param(
        f"{POD_TEMPLATE}.containers[].args",
        PatchStrategy.DEFAULT,
        ListType.ATOMIC,
        id="args-replaced",
    ),
]


@pytest.mark.parametrize(("path", "strategy", "list_type"), OTHER_RULES)
def test_other_lists(path: str, strategy: PatchStrategy, list_type: ListType) -> None:
    node = lookup(DEPLOYMENT, path)
    assert (node.strategy, node.list_type) == (strategy, list_type)


def test_job_conditions_merge_in_patches_but_are_atomic_for_apply() -> None:
    node = lookup(GroupVersionKind("batch", "v1", "Job"), "status.conditions")
    assert (node.strategy, node.merge_key, node.list_type) == (
        PatchStrategy.MERGE,
        "type",
        ListType.ATOMIC,
    )


@pytest.mark.parametrize(
    ("gvk", "path", "atomic", "strategy"),
    [
        pytest.param(DEPLOYMENT, "spec.selector", True, PatchStrategy.DEFAULT, id="label-selector"),
        pytest.param(
            GroupVersionKind("policy", "v1", "PodDisruptionBudget"),
            "spec.selector",
            True,
            PatchStrategy.REPLACE,
            id="pdb-selector-replaced",
        ),
        pytest.param(
            DEPLOYMENT,
            f"{POD_TEMPLATE}.nodeSelector",
            True,
            PatchStrategy.DEFAULT,
            id="node-selector",
        ),
        pytest.param(
            DEPLOYMENT, "metadata.labels", False, PatchStrategy.DEFAULT, id="labels-granular"
        ),
    ],
)
def test_maps(gvk: GroupVersionKind, path: str, atomic: bool, strategy: PatchStrategy) -> None:
    node = lookup(gvk, path)
    assert (node.atomic, node.strategy) == (atomic, strategy)


def test_deployment_strategy_retains_keys() -> None:
    assert lookup(DEPLOYMENT, "spec.strategy").retain_keys
    assert lookup(DEPLOYMENT, f"{POD_TEMPLATE}.volumes").retain_keys


def test_custom_resources_have_metadata_rules_only() -> None:
    foo = GroupVersionKind("example.com", "v1", "Foo")
    assert not supports_strategic_merge(foo)
    assert supports_strategic_merge(DEPLOYMENT)
    assert lookup(foo, "metadata.finalizers").list_type is ListType.SET
    assert lookup(foo, "spec.containers").list_type is ListType.ATOMIC
