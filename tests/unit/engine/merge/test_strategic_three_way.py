"""The three-way strategic merge patch `kubectl apply` sends, checked against kubectl."""

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.engine.merge import GroupVersionKind, PatchError, create_three_way_strategic_patch

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
CASES = yaml.safe_load((Path(__file__).parent / "cases" / "three_way_apply.yaml").read_text())


def annotated(obj: dict[str, Any], value: str) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    out.setdefault("metadata", {}).setdefault("annotations", {})[LAST_APPLIED] = value
    return out


def without_last_applied(patch: dict[str, Any]) -> dict[str, Any]:
    """The patch minus the annotation's own change, as the recorded cases are."""
    meta = patch.get("metadata", {})
    annotations = meta.get("annotations", {})
    annotations.pop(LAST_APPLIED, None)
    if not annotations:
        meta.pop("annotations", None)
    if "metadata" in patch and not meta:
        del patch["metadata"]
    return patch


@pytest.mark.parametrize("case", CASES, ids=[c["name"].replace(" ", "-") for c in CASES])
def test_matches_the_patch_kubectl_apply_sends(case: dict[str, Any]) -> None:
    original = case["original"]
    current = annotated(case["current"], "old") if original is not None else case["current"]
    modified = annotated(case["modified"], "new")
    inputs_before = copy.deepcopy((original, modified, current))
    patch = create_three_way_strategic_patch(
        original, modified, current, GroupVersionKind.of(modified)
    )
    assert without_last_applied(copy.deepcopy(patch)) == case["expected"]
    assert (original, modified, current) == inputs_before


def test_items_without_merge_key_are_reported_where_they_are() -> None:
    deployment = GroupVersionKind("apps", "v1", "Deployment")
    modified = {"spec": {"template": {"spec": {"containers": [{"name": "a"}, {"image": "x"}]}}}}
    current = {"spec": {"template": {"spec": {"containers": [{"name": "a"}]}}}}
    with pytest.raises(PatchError) as raised:
        create_three_way_strategic_patch(None, modified, current, deployment)
    assert raised.value.field == "spec.template.spec.containers[1]"
    assert "no merge key 'name'" in raised.value.problem
