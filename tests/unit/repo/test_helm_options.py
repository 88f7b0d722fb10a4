"""`source.helm` parsed into typed options; values merged and escaped as Helm and Argo CD do."""

from pathlib import Path

import pytest

from app.repo.errors import RenderError
from app.repo.helm.child import merge
from app.repo.helm.engine import ChartRender, _binary_argv
from app.repo.helm.options import helm_options
from app.repo.helm.values import escape_commas


def test_values_object_wins_over_values() -> None:
    options = helm_options({"values": "a: 1\n", "valuesObject": {"a": 2}}, field="spec.source.helm")
    assert options.values == "a: 2\n"


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ({"valueFile": []}, "spec.source.helm.valueFile: not a field of source.helm"),
        ({"skipCrds": "yes"}, "spec.source.helm.skipCrds: must be true or false"),
        ({"version": "v2"}, "spec.source.helm.version: 'v2' is not supported"),
        ({"parameters": [{"value": "1"}]}, "spec.source.helm.parameters[0].name: must not"),
        ({"parameters": [{"name": "a", "vaule": "1"}]}, "spec.source.helm.parameters[0]: unknown"),
        ({"valueFiles": ["x"] * 501}, "spec.source.helm.valueFiles: more than 500 entries"),
    ],
)
def test_bad_fields_are_refused_by_name(block: dict[str, object], message: str) -> None:
    with pytest.raises(RenderError, match=f"^{message}".replace("[", r"\[").replace("]", r"\]")):
        helm_options(block, field="spec.source.helm")


def test_parameter_values_keep_commas_as_argo_cd_escapes_them() -> None:
    assert escape_commas("a,b") == r"a\,b"
    assert escape_commas(r"a\,b") == r"a\,b"
    assert escape_commas("{a,b}") == "{a,b}"


def test_merge_is_helms_deep_merge() -> None:
    base = {"a": {"b": 1, "c": [1]}, "d": 1}
    assert merge(base, {"a": {"c": [2], "e": 3}, "d": {"x": 1}}) == {
        "a": {"b": 1, "c": [2], "e": 3},
        "d": {"x": 1},
    }


def test_helm_template_argv_keeps_values_in_files(tmp_path: Path) -> None:
    request = ChartRender(
        chart="/work/chart",
        release="web",
        namespace="shop",
        kube_version="v1.30.0",
        api_versions=["example.com/v1"],
        values=["colour: red\n"],
        value_names=["spec.source.helm.values"],
        set=[("replicas", "3")],
        set_string=[("tag", "01")],
        set_file=[("motd", "hello")],
        skip_schema_validation=True,
    )

    argv = _binary_argv("/usr/bin/helm", request, tmp_path)

    assert argv[:6] == ["/usr/bin/helm", "template", "web", "/work/chart", "--namespace", "shop"]
    assert "--include-crds" in argv and "--skip-schema-validation" in argv
    assert argv[argv.index("--kube-version") + 1] == "v1.30.0"
    assert argv[argv.index("--set") + 1] == "replicas=3"
    assert argv[argv.index("--set-string") + 1] == "tag=01"
    assert (tmp_path / "values-0.yaml").read_text() == "colour: red\n"
    assert argv[argv.index("--set-file") + 1] == f"motd={tmp_path / 'file-0'}"
    assert not any("colour" in a or "hello" in a for a in argv)
