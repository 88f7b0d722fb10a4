"""`sluice health test DIR` on a library written the way Argo CD lays one out."""

from pathlib import Path

import pytest

from app.cli.main import main

SCRIPT = """
hs = {}
if obj.status ~= nil and table.getn(obj.status.conditions or {}) > 0 then
  hs.status = obj.status.conditions[1].status == "True" and "Healthy" or "Degraded"
  hs.message = obj.status.conditions[1].message
  return hs
end
return {status = "Progressing", message = "Waiting"}
"""


def library(root: Path, expected_new: str) -> Path:
    kind = root / "widgets.example.com" / "Widget"
    (kind / "testdata").mkdir(parents=True)
    (kind / "health.lua").write_text(SCRIPT)
    (kind / "testdata" / "new.yaml").write_text(
        "apiVersion: widgets.example.com/v1\nkind: Widget\n"
    )
    (kind / "testdata" / "ready.yaml").write_text(
        "apiVersion: widgets.example.com/v1\nkind: Widget\n"
        "status:\n  conditions: [{type: Ready, status: 'True', message: all good}]\n"
    )
    (kind / "health_test.yaml").write_text(
        "tests:\n"
        f"- healthStatus: {{status: {expected_new}, message: Waiting}}\n"
        "  inputPath: testdata/new.yaml\n"
        "- healthStatus: {status: Healthy, message: all good}\n"
        "  inputPath: testdata/ready.yaml\n"
    )
    return root


def test_every_case_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["health", "test", str(library(tmp_path, "Progressing"))]) == 0
    out = capsys.readouterr().out
    assert "PASS resource_customizations/widgets.example.com/Widget testdata/new.yaml" in out
    assert "2 passed, 0 failed, 1 health check(s)" in out


def test_a_failing_case_says_what_differed_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["health", "test", str(library(tmp_path, "Suspended"))]) == 1
    captured = capsys.readouterr()
    assert (
        "FAIL resource_customizations/widgets.example.com/Widget testdata/new.yaml: "
        in captured.err
    )
    assert "expected Suspended 'Waiting', got Progressing 'Waiting'" in captured.err
    assert "1 passed, 1 failed" in captured.out


def test_a_script_that_does_not_compile_or_has_no_tests_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "Widget"
    broken.mkdir()
    (broken / "health.lua").write_text("return {")
    assert main(["health", "test", str(tmp_path)]) == 1
    assert "is not valid Lua: line 1:" in capsys.readouterr().err
    (broken / "health.lua").write_text("return {status = 'Healthy'}")
    assert main(["health", "test", str(tmp_path)]) == 1
    assert "no health_test.yaml beside health.lua" in capsys.readouterr().err


def test_the_workers_load_the_same_directory_between_argocd_cm_and_the_packaged_checks(
    tmp_path: Path,
) -> None:
    from app.engine.health import assess
    from app.engine.system_settings import parse_system_settings
    from app.model.health import HealthStatus, HealthStatusCode
    from app.runtime.settings import Settings
    from app.runtime.system_settings import SettingsRefused, load_library

    root = library(tmp_path / "lib", "Progressing")
    certificate = root / "cert-manager.io" / "Certificate"
    certificate.mkdir(parents=True)
    (certificate / "health.lua").write_text('return {status = "Suspended", message = "library"}')
    actions = root / "apps" / "Deployment" / "actions"
    (actions / "nudge").mkdir(parents=True)
    (actions / "discovery.lua").write_text("return {nudge = {}}")
    (actions / "nudge" / "action.lua").write_text("return obj")
    env = {"SLUICE_RESOURCE_CUSTOMIZATIONS_DIR": str(root)}
    loaded = load_library(Settings.from_env(env).resource_customizations_dir)
    cert = {"apiVersion": "cert-manager.io/v1", "kind": "Certificate", "metadata": {"name": "c"}}
    widget = {"apiVersion": "widgets.example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    settings = parse_system_settings({}, origin="test", library=loaded)
    assert assess(cert, customizations=settings.health) == HealthStatus(
        HealthStatusCode.SUSPENDED, "library"
    ), "the library wins over Sluice's packaged Certificate check"
    assert assess(widget, customizations=settings.health) == HealthStatus(
        HealthStatusCode.PROGRESSING, "Waiting"
    )
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}}
    assert [a.name for a in settings.actions.offered(deployment)] == ["nudge"]
    configured = parse_system_settings(
        {"resource.customizations.health.cert-manager.io_Certificate": "return {status='Healthy'}"},
        origin="test",
        library=loaded,
    )
    assert assess(cert, customizations=configured.health) == HealthStatus(HealthStatusCode.HEALTHY)
    (certificate / "health.lua").write_text("return {")
    with pytest.raises(SettingsRefused, match="is not valid Lua"):
        load_library(root)
    with pytest.raises(SettingsRefused, match="is not a directory"):
        load_library(tmp_path / "missing")


def test_timestamps_reach_the_script_as_strings_as_kubernetes_reads_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kind = tmp_path / "Widget"
    (kind / "testdata").mkdir(parents=True)
    (kind / "health.lua").write_text(
        'return {status = "Healthy", message = string.sub(obj.metadata.creationTimestamp, 1, 4)}'
    )
    (kind / "testdata" / "w.yaml").write_text(
        "kind: Widget\nmetadata: {name: w, creationTimestamp: 2024-01-02T03:04:05Z}\n"
    )
    (kind / "health_test.yaml").write_text(
        "tests:\n- healthStatus: {status: Healthy, message: '2024'}\n  inputPath: testdata/w.yaml\n"
    )
    assert main(["health", "test", str(tmp_path)]) == 0, capsys.readouterr().err
