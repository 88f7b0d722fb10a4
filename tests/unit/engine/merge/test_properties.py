"""Properties that must hold for any input: patches reproduce what they were made from.

The checkers here encode the expected semantics independently of the library's schema
table, for the shape generated: a Deployment whose containers merge by name, env by
name, ports by containerPort, finalizers as a set, args atomic.
"""

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.merge import (
    FieldSet,
    GroupVersionKind,
    apply_merge_patch,
    apply_strategic_patch,
    create_merge_patch,
    create_three_way_merge_patch,
    create_three_way_strategic_patch,
    server_side_apply,
)
from app.engine.merge.managed_fields import NEVER_OWNED
from tests.unit.engine.merge.deployments import (
    canonical,
    deployments,
    smp_contains,
    smp_deletions_applied,
)

SETTINGS = settings(max_examples=150, deadline=None)
DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False, allow_infinity=False, width=16),
    st.text("ab", max_size=2),
)
keys = st.text("abc", min_size=1, max_size=2)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=12,
)
null_free = st.recursive(
    scalars.filter(lambda v: v is not None),
    lambda inner: st.lists(json_values, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=12,
)
documents = st.dictionaries(keys, json_values, max_size=4)
null_free_documents = st.dictionaries(keys, null_free, max_size=4)


@SETTINGS
@given(documents, null_free_documents)
def test_a_merge_patch_turns_its_original_into_its_target(
    original: dict[str, Any], modified: dict[str, Any]
) -> None:
    patch = create_merge_patch(original, modified)
    assert canonical(apply_merge_patch(original, patch)) == canonical(modified)


def contains(result: Any, expected: Any) -> bool:
    """Every field of `expected` is in `result` with its value (objects merge, the rest is
    equal)."""
    if isinstance(expected, dict):
        return isinstance(result, dict) and all(
            k in result and contains(result[k], v) for k, v in expected.items()
        )
    return canonical(result) == canonical(expected)


def deletions_applied(result: Any, original: Any, modified: Any) -> bool:
    """Keys the original configuration set and the new one dropped are gone."""
    if not (isinstance(result, dict) and isinstance(original, dict)):
        return True
    if not isinstance(modified, dict):
        return True
    for key, value in original.items():
        if key not in modified:
            if key in result:
                return False
        elif not deletions_applied(result.get(key), value, modified[key]):
            return False
    return True


@SETTINGS
@given(st.none() | documents, null_free_documents, documents)
def test_kubectl_three_way_merge_patch_yields_the_configuration(
    original: dict[str, Any] | None, modified: dict[str, Any], current: dict[str, Any]
) -> None:
    patch = create_three_way_merge_patch(original, modified, current)
    result = apply_merge_patch(current, patch)
    assert contains(result, modified)
    assert deletions_applied(result, original or {}, modified)


@SETTINGS
@given(st.none() | deployments, deployments, deployments)
def test_kubectl_three_way_strategic_patch_yields_the_configuration(
    original: dict[str, Any] | None, modified: dict[str, Any], current: dict[str, Any]
) -> None:
    patch = create_three_way_strategic_patch(original, modified, current, DEPLOYMENT)
    result = apply_strategic_patch(current, patch, DEPLOYMENT)
    assert smp_contains(result, modified)
    assert smp_deletions_applied(result, original or {}, modified)
    if not patch:
        assert smp_contains(current, modified)


@SETTINGS
@given(deployments)
def test_field_sets_round_trip_through_fields_v1(obj: dict[str, Any]) -> None:
    claimed = FieldSet.from_object(obj, DEPLOYMENT)
    assert FieldSet.from_fields_v1(claimed.to_fields_v1()) == claimed
    assert only_empty_lists(claimed.remove_from(obj))


def only_empty_lists(value: Any) -> bool:
    """What a configuration claims nothing of: empty lists merged by key or value."""
    if isinstance(value, dict):
        return all(only_empty_lists(v) for v in value.values())
    return value == []


@SETTINGS
@given(st.none() | deployments, deployments)
def test_apply_yields_the_configuration_and_owns_exactly_it(
    live: dict[str, Any] | None, config: dict[str, Any]
) -> None:
    named = {**config, "metadata": {**config.get("metadata", {}), "name": "d"}}
    result = server_side_apply(
        live, named, manager="m", force=True, gvk=DEPLOYMENT, now="2024-01-01T00:00:00Z"
    )
    body = {
        **result,
        "metadata": {k: v for k, v in result["metadata"].items() if k != "managedFields"},
    }
    assert smp_contains(body, named)
    entries = {e["manager"]: e for e in result["metadata"].get("managedFields", [])}
    claimed = FieldSet.from_object(named, DEPLOYMENT) - NEVER_OWNED
    if not claimed:
        assert "m" not in entries
        return
    assert FieldSet.from_fields_v1(entries["m"]["fieldsV1"]) == claimed
    again = server_side_apply(
        result, named, manager="m", force=False, gvk=DEPLOYMENT, now="2024-01-01T00:01:00Z"
    )
    assert again == result
