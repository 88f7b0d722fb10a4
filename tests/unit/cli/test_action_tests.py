"""`sluice health test DIR` on a library's resource actions: `actions/action_test.yaml`."""

from pathlib import Path

import pytest

from app.cli.main import main

DISCOVERY = """
local actions = {}
actions["restart"] = {}
actions["scale"] = {params = {{name = "replicas", type = "number"}}}
local paused = obj.spec ~= nil and obj.spec.paused == true
actions["resume"] = {disabled = not paused, iconClass = "fa fa-play"}
return actions
"""
RESUME = """
obj.spec.paused = false
return obj
"""
RESTART = """
if obj.spec.template.metadata.annotations == nil then
  obj.spec.template.metadata.annotations = {}
end
obj.spec.template.metadata.annotations["example.com/restartedAt"] = os.date("!%Y-%m-%dT%XZ")
return obj
"""
SCALE = """
obj.spec.replicas = tonumber(actionParams["replicas"])
return obj
"""
WIDGET = """apiVersion: widgets.example.com/v1
kind: Widget
metadata: {{name: w, namespace: ns, creationTimestamp: 2024-01-02T03:04:05Z}}
spec:
  paused: {paused}
  replicas: 1
  template: {{metadata: {{labels: {{app: w}}}}}}
"""
TESTS = """discoveryTests:
- inputPath: testdata/paused.yaml
  result:
  - name: restart
  - name: resume
    disabled: false
    iconClass: fa fa-play
  - name: scale
    params: [{{name: replicas}}]
- inputPath: testdata/running.yaml
  result: [{{name: restart}}, {{name: resume, disabled: {running_disabled}}}, {{name: scale}}]
actionTests:
- action: resume
  inputPath: testdata/paused.yaml
  expectedOutputPath: testdata/running.yaml
- action: restart
  inputPath: testdata/running.yaml
  expectedOutputPath: testdata/restarted.yaml
- action: scale
  inputPath: testdata/running.yaml
  expectedOutputPath: testdata/scaled.yaml
  parameters: {{replicas: "3"}}
"""


def library(root: Path, *, running_disabled: str = "true", scaled_to: int = 3) -> Path:
    actions = root / "widgets.example.com" / "Widget" / "actions"
    for name, script in (("resume", RESUME), ("restart", RESTART), ("scale", SCALE)):
        (actions / name).mkdir(parents=True)
        (actions / name / "action.lua").write_text(script)
    (actions / "discovery.lua").write_text(DISCOVERY)
    data = actions / "testdata"
    data.mkdir()
    (data / "paused.yaml").write_text(WIDGET.format(paused="true"))
    (data / "running.yaml").write_text(WIDGET.format(paused="false"))
    restarted = WIDGET.format(paused="false").replace(
        "{metadata: {labels: {app: w}}}",
        "{metadata: {labels: {app: w}, annotations: "
        "{example.com/restartedAt: '2000-01-01T00:00:00Z'}}}",
    )
    (data / "restarted.yaml").write_text(restarted)
    scaled = WIDGET.format(paused="false").replace("replicas: 1", f"replicas: {scaled_to}")
    (data / "scaled.yaml").write_text(scaled)
    (actions / "action_test.yaml").write_text(TESTS.format(running_disabled=running_disabled))
    return root


def test_discovery_and_action_cases_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["health", "test", str(library(tmp_path))]) == 0
    out = capsys.readouterr().out
    where = "resource_customizations/widgets.example.com/Widget/actions"
    assert f"PASS {where} discovery testdata/paused.yaml" in out
    assert f"PASS {where} discovery testdata/running.yaml" in out
    assert f"PASS {where} resume testdata/paused.yaml" in out
    assert f"PASS {where} restart testdata/running.yaml" in out, "any timestamp is the time run"
    assert f"PASS {where} scale testdata/running.yaml" in out, "parameters reach actionParams"
    assert "5 passed, 0 failed, 0 health check(s), 1 action set(s)" in out


def test_a_wrong_output_names_the_field_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["health", "test", str(library(tmp_path, scaled_to=4))]) == 1
    captured = capsys.readouterr()
    assert (
        "FAIL resource_customizations/widgets.example.com/Widget/actions scale "
        "testdata/running.yaml: spec.replicas: expected 4, got 3" in captured.err
    )
    assert "4 passed, 1 failed" in captured.out


def test_a_wrong_discovery_says_which_action_differs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["health", "test", str(library(tmp_path, running_disabled="false"))]) == 1
    err = capsys.readouterr().err
    assert "discovery testdata/running.yaml: resume: expected disabled False, got True" in err


def test_a_broken_script_or_missing_tests_fail_the_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    actions = library(tmp_path) / "widgets.example.com" / "Widget" / "actions"
    (actions / "scale" / "action.lua").write_text("obj.spec.replicas = ")
    assert main(["health", "test", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "Widget/actions/scale/action.lua: is not valid Lua" in err
    (actions / "scale" / "action.lua").write_text(SCALE)
    (actions / "action_test.yaml").unlink()
    assert main(["health", "test", str(tmp_path)]) == 1
    assert "no action_test.yaml beside discovery.lua" in capsys.readouterr().err


def test_a_case_reading_outside_its_directory_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    actions = library(tmp_path / "lib") / "widgets.example.com" / "Widget" / "actions"
    (tmp_path / "secret.yaml").write_text("kind: Secret\n")
    (actions / "action_test.yaml").write_text(
        "actionTests:\n- action: resume\n  inputPath: ../../../../secret.yaml\n"
        "  expectedOutputPath: testdata/running.yaml\n"
    )
    assert main(["health", "test", str(tmp_path / "lib")]) == 1
    assert "inputPath '../../../../secret.yaml' leaves actions/" in capsys.readouterr().err
