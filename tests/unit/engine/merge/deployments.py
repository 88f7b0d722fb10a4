"""Hypothesis strategies and checkers for Deployment-shaped objects.

The checkers encode the expected semantics independently of the library's schema table:
containers merge by name, env by name, ports by containerPort, finalizers are a set,
args are atomic.
"""

from typing import Any

from hypothesis import strategies as st


def canonical(value: Any) -> Any:
    """A form where == is JSON equality: numbers by value, booleans apart from numbers."""
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return [canonical(v) for v in value]
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int | float):
        return ("number", float(value))
    return value


label_keys = st.sampled_from(["app", "tier", "team"])
env = st.lists(
    st.fixed_dictionaries(
        {"name": st.sampled_from(["A", "B", "C"]), "value": st.sampled_from(["1", "2"])}
    ),
    unique_by=lambda e: e["name"],
    max_size=3,
)
ports = st.lists(
    st.fixed_dictionaries(
        {"containerPort": st.sampled_from([80, 443, 8080])},
        optional={"name": st.sampled_from(["http", "web"])},
    ),
    unique_by=lambda p: p["containerPort"],
    max_size=2,
)
container = st.fixed_dictionaries(
    {"name": st.sampled_from(["a", "b", "c", "d"])},
    optional={
        "image": st.sampled_from(["x", "y"]),
        "env": env,
        "ports": ports,
        "args": st.lists(st.sampled_from(["-v", "-q"]), max_size=2),
    },
)
deployments = st.fixed_dictionaries(
    {"apiVersion": st.just("apps/v1"), "kind": st.just("Deployment")},
    optional={
        "metadata": st.fixed_dictionaries(
            {},
            optional={
                "labels": st.dictionaries(label_keys, st.sampled_from(["1", "2"]), max_size=3),
                "finalizers": st.lists(st.sampled_from(["f1", "f2", "f3"]), unique=True),
            },
        ),
        "spec": st.fixed_dictionaries(
            {},
            optional={
                "replicas": st.integers(0, 3),
                "strategy": st.sampled_from(
                    [{"type": "Recreate"}, {"type": "RollingUpdate", "rollingUpdate": {"a": 1}}]
                ),
                "template": st.fixed_dictionaries(
                    {
                        "spec": st.fixed_dictionaries(
                            {
                                "containers": st.lists(
                                    container, unique_by=lambda c: c["name"], max_size=3
                                )
                            }
                        )
                    }
                ),
            },
        ),
    },
)

MERGE_KEYS = {"containers": "name", "env": "name", "ports": "containerPort"}
SETS = {"finalizers"}


def smp_contains(result: Any, expected: Any, field: str = "") -> bool:
    """`expected` is in `result`, reading merge lists by key and sets by value, in order."""
    if isinstance(expected, dict):
        return isinstance(result, dict) and all(
            k in result and smp_contains(result[k], v, k) for k, v in expected.items()
        )
    if isinstance(expected, list) and field in MERGE_KEYS:
        key = MERGE_KEYS[field]
        found = {item[key]: (i, item) for i, item in enumerate(result or [])}
        if any(item[key] not in found for item in expected):
            return False
        positions = [found[item[key]][0] for item in expected]
        return positions == sorted(positions) and all(
            smp_contains(found[item[key]][1], item) for item in expected
        )
    if isinstance(expected, list) and field in SETS:
        positions = [result.index(v) if v in (result or []) else -1 for v in expected]
        return -1 not in positions and positions == sorted(positions)
    return canonical(result) == canonical(expected)


def smp_deletions_applied(result: Any, original: Any, modified: Any, field: str = "") -> bool:
    if isinstance(original, dict) and isinstance(modified, dict) and isinstance(result, dict):
        for key, value in original.items():
            if key not in modified:
                if key in result:
                    return False
            elif not smp_deletions_applied(result.get(key), value, modified[key], key):
                return False
        return True
    if isinstance(original, list) and isinstance(modified, list) and field in MERGE_KEYS:
        key = MERGE_KEYS[field]
        kept = {item[key]: item for item in modified}
        live = {item[key]: item for item in result or []}
        for item in original:
            if item[key] not in kept:
                if item[key] in live:
                    return False
            elif not smp_deletions_applied(live.get(item[key]), item, kept[item[key]]):
                return False
        return True
    if isinstance(original, list) and isinstance(modified, list) and field in SETS:
        return not any(v in (result or []) for v in original if v not in modified)
    return True
