"""The suite's log scan finds a registered secret or a traceback, and never shows the secret."""

from pathlib import Path

from tests.support.logscan import known_secret, scan

PLANTED = known_secret("planted-secret-6b1f0c", "a planted secret")


def test_the_scan_names_the_file_line_and_what_it_found_but_not_the_secret(
    tmp_path: Path,
) -> None:
    """(Not named `.log`: the run's own scan would find the planted lines.)"""
    log = tmp_path / "worker.planted"
    log.write_text(
        '{"event": "fine"}\n'
        f'{{"event": "leaked", "token": "{PLANTED}"}}\n'
        "Traceback (most recent call last):\n"
    )
    (tmp_path / "clean.planted").write_text('{"event": "fine"}\n')
    findings = scan(tmp_path.rglob("*.planted"))
    assert [(f.path.name, f.line, f.what) for f in findings] == [
        ("worker.planted", 2, "a planted secret"),
        ("worker.planted", 3, "a traceback"),
    ]
    assert PLANTED not in "\n".join(str(f) for f in findings)
    assert "<a planted secret>" in str(findings[0])
