"""Config Management Plugins without I/O: plugin.yaml parsing and the commands' environment."""

import json
from typing import Any

import pytest

from app.repo.errors import RenderError
from app.repo.plugins.discovery import listing_discovers
from app.repo.plugins.environment import (
    kube_version,
    parse_plugin_source,
    plugin_environment,
)
from app.repo.plugins.spec import Discover, PluginCommand, parse_plugin
from tests.unit.repo.trees import Link, make_tree

BUILD = {
    "ARGOCD_APP_NAME": "web",
    "ARGOCD_APP_NAMESPACE": "shop",
    "ARGOCD_APP_REVISION": "0123456789abcdef0123456789abcdef01234567",
    "KUBE_VERSION": "1.29.3",
}
BASE = {"PATH": "/usr/bin", "HOME": "/tmp/home"}

PLUGIN = """
apiVersion: argoproj.io/v1alpha1
kind: ConfigManagementPlugin
metadata:
  name: envsubst
spec:
  version: v1.0
  init:
    command: [sh, -c]
    args: ["echo init"]
  generate:
    command: [sh, -c, "cat *.yaml"]
  discover:
    find:
      glob: "**/values.env"
  parameters:
    static:
      - name: values-files
        title: VALUES FILES
        collectionType: array
        array: [a.yaml]
    dynamic:
      command: [echo, "[]"]
  preserveFileMode: true
  lockRepo: true
"""


def test_a_plugin_yaml_reads_as_argo_cd_declares_it() -> None:
    plugin = parse_plugin(PLUGIN, source="envsubst/plugin.yaml")

    assert plugin.full_name == "envsubst-v1.0"
    assert plugin.init == PluginCommand(("sh", "-c", "echo init"))
    assert plugin.generate == PluginCommand(("sh", "-c", "cat *.yaml"))
    assert (plugin.discover.glob, plugin.discover.enabled) == ("**/values.env", True)
    assert plugin.static_parameters[0].array == ("a.yaml",)
    assert plugin.dynamic_parameters == PluginCommand(("echo", "[]"))
    assert (plugin.preserve_file_mode, plugin.lock_repo) == (True, True)


def test_a_plugin_without_version_goes_by_its_name() -> None:
    text = PLUGIN.replace("  version: v1.0\n", "")
    assert parse_plugin(text, source="p").full_name == "envsubst"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        pytest.param(("kind: ConfigManagementPlugin", "kind: Plugin"), "must be apiVersion",
                     id="kind"),
        pytest.param(("name: envsubst", "name: ''"), "metadata.name: must name", id="no-name"),
        pytest.param(("command: [sh, -c, \"cat *.yaml\"]", "command: []"),
                     "spec.generate.command: must name the program", id="empty-generate"),
        pytest.param(("lockRepo: true", "lockRepo: sometimes"), "spec.lockRepo: must be true",
                     id="lock-not-bool"),
        pytest.param(("lockRepo: true", "provideGitCreds: true"),
                     "spec.provideGitCreds: Sluice passes no repository credentials",
                     id="git-creds-refused"),
    ],
)  # fmt: skip
def test_a_bad_plugin_yaml_names_the_file_and_field(change: tuple[str, str], message: str) -> None:
    with pytest.raises(RenderError, match=rf"^p/plugin\.yaml: .*{message}"):
        parse_plugin(PLUGIN.replace(*change), source="p/plugin.yaml")


def environment(raw: dict[str, Any]) -> dict[str, str]:
    plugin = parse_plugin_source(raw, field="spec.source")
    return plugin_environment(BUILD, plugin, base=BASE)


def test_the_environment_is_argo_cds_and_nothing_else() -> None:
    env = environment(
        {
            "name": "envsubst-v1.0",
            "env": [{"name": "FOO", "value": "bar-${ARGOCD_APP_NAME}"}],
            "parameters": [
                {"name": "image-tag", "string": "$ARGOCD_APP_REVISION"},
                {"name": "values files", "array": ["a.yaml", "b.yaml"]},
                {"name": "labels", "map": {"team.io/owner": "ops", "tier": "<web>"}},
            ],
        }
    )

    assert env == {
        **BASE,
        **BUILD,
        "ARGOCD_ENV_FOO": "bar-web",
        "ARGOCD_APP_PARAMETERS": (
            '[{"name":"image-tag","string":"0123456789abcdef0123456789abcdef01234567"},'
            '{"array":["a.yaml","b.yaml"],"name":"values files"},'
            '{"map":{"team.io/owner":"ops","tier":"\\u003cweb\\u003e"},"name":"labels"}]'
        ),
        "PARAM_IMAGE_TAG": BUILD["ARGOCD_APP_REVISION"],
        "PARAM_VALUES_FILES_0": "a.yaml",
        "PARAM_VALUES_FILES_1": "b.yaml",
        "PARAM_LABELS_TEAM_IO_OWNER": "ops",
        "PARAM_LABELS_TIER": "<web>",
    }
    assert json.loads(env["ARGOCD_APP_PARAMETERS"])[2]["map"]["tier"] == "<web>"


def test_no_parameters_is_an_empty_json_list() -> None:
    assert environment({})["ARGOCD_APP_PARAMETERS"] == "[]"
    assert "ARGOCD_ENV_FOO" not in environment({})


def test_user_env_cannot_set_other_variables() -> None:
    env = environment({"env": [{"name": "PATH", "value": "/evil"}]})
    assert env["PATH"] == "/usr/bin"
    assert env["ARGOCD_ENV_PATH"] == "/evil"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        pytest.param({"env": [{"name": "A=B", "value": "x"}]}, r"env\[0\]\.name: must be a var",
                     id="bad-env-name"),
        pytest.param({"env": [{"name": "A", "value": 3}]}, r"env\[0\]\.value: must be a string",
                     id="env-number"),
        pytest.param({"parameters": [{"string": "x"}]}, r"parameters\[0\]: must be a mapping",
                     id="param-without-name"),
        pytest.param({"parameters": [{"name": "a", "array": "x"}]},
                     r"parameters\[0\]\.array: must be a list", id="array-not-list"),
    ],
)  # fmt: skip
def test_a_bad_plugin_block_names_its_field(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(RenderError, match=rf"^spec\.source\.plugin\.{message}"):
        parse_plugin_source(raw, field="spec.source")


@pytest.mark.parametrize(
    ("given", "expected"),
    [("v1.29.3+k3s1", "1.29.3"), ("v1.30.0", "1.30.0"), ("1.28", "1.28.0"), ("", "")],
)
def test_kube_version_is_major_minor_patch(given: str, expected: str) -> None:
    assert kube_version(given) == expected


LISTING = make_tree(
    {
        "app/values.colour": "",
        "app/sub/deep/Chart.yaml": "",
        "app/.hidden.env": "",
        "other/x.colour": "",
    }
)


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        pytest.param(Discover(file_name="*.colour"), True, id="file-name"),
        pytest.param(Discover(file_name="./*.colour"), True, id="file-name-dot-slash"),
        pytest.param(Discover(file_name="*.yaml"), False, id="file-name-stays-in-one-dir"),
        pytest.param(Discover(file_name="sub/*/Chart.yaml"), True, id="file-name-segments"),
        pytest.param(Discover(file_name="*.env"), True, id="hidden-files-match-as-in-go"),
        pytest.param(Discover(glob="**/Chart.yaml"), True, id="glob-any-depth"),
        pytest.param(Discover(glob="**/*.colour"), True, id="glob-zero-depth"),
        pytest.param(Discover(glob="**/*.json"), False, id="glob-no-match"),
        pytest.param(Discover(file_name="../other/*.colour"), None, id="leaving-needs-checkout"),
        pytest.param(
            Discover(command=PluginCommand(("sh", "-c", "true"))), None, id="command-must-run"
        ),
    ],
)
def test_the_listing_answers_discovery_when_it_can(rules: Discover, expected: bool | None) -> None:
    assert listing_discovers(rules, LISTING, "app") is expected


def test_a_symlink_under_the_app_leaves_it_to_the_checkout() -> None:
    tree = make_tree({"app/linked": Link("../other"), "other/x.colour": ""})
    assert listing_discovers(Discover(glob="**/*.colour"), tree, "app") is None
