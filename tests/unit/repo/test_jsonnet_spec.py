"""`directory.jsonnet` as Argo CD reads it: variables substituted, every field checked."""

from typing import Any

import pytest

from app.repo.errors import RenderError
from app.repo.jsonnet_spec import JsonnetOptions, JsonnetVar, parse_jsonnet_options

BUILD = {"ARGOCD_APP_NAME": "web", "ARGOCD_APP_REVISION": "0123456789abcdef"}


def parse(raw: dict[str, Any]) -> JsonnetOptions:
    return parse_jsonnet_options(raw, field="spec.source.directory.jsonnet", variables=BUILD)


def test_values_get_the_build_environment_and_code_flags_are_kept() -> None:
    options = parse(
        {
            "extVars": [{"name": "app", "value": "${ARGOCD_APP_NAME}-$ARGOCD_APP_REVISION"}],
            "tlas": [
                {"name": "replicas", "value": "2", "code": True},
                {"name": "price", "value": "$$5 ${UNSET}"},
            ],
            "libs": ["vendor", "/lib"],
        }
    )
    assert options == JsonnetOptions(
        ext_vars=(JsonnetVar("app", "web-0123456789abcdef", False),),
        tlas=(JsonnetVar("replicas", "2", True), JsonnetVar("price", "$5 ", False)),
        libs=("vendor", "/lib"),
    )


def test_an_empty_block_means_no_variables() -> None:
    assert parse({}) == JsonnetOptions()


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        pytest.param({"tlas": {"a": "b"}}, r"jsonnet\.tlas: must be a list", id="not-a-list"),
        pytest.param({"extVars": [{"value": "x"}]}, r"extVars\[0\]\.name: must be a non-empty",
                     id="no-name"),
        pytest.param({"tlas": [{"name": "n", "value": 3}]}, r"tlas\[0\]\.value: must be a string",
                     id="number-value"),
        pytest.param({"tlas": [{"name": "n", "value": "3", "code": "yes"}]},
                     r"tlas\[0\]\.code: must be true or false", id="code-not-bool"),
        pytest.param({"extVars": [{"name": "a"}, {"name": "a"}]},
                     r"extVars\[1\]\.name: 'a' is declared twice", id="duplicate"),
        pytest.param({"libs": ["ok", ""]}, r"jsonnet\.libs: must be a list of repository paths",
                     id="empty-lib"),
        pytest.param({"tlas": [{"name": "big", "value": "x" * 300_000}]},
                     r"tlas\[0\]\.value: longer than", id="oversize-value"),
    ],
)  # fmt: skip
def test_bad_settings_name_their_field(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(RenderError, match=message):
        parse(raw)
