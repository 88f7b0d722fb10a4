"""The `sluice` entry point: client commands start without the server runtime."""

import subprocess
import sys

import pytest

from app.cli.main import COMMANDS, build_parser


def _imported_after(argv: list[str]) -> set[str]:
    probe = (
        "import sys; from app.cli.main import build_parser; "
        f"build_parser({argv!r}); print(' '.join(sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return set(out.stdout.split())


def test_a_client_command_does_not_import_the_runtime_or_the_cluster_client() -> None:
    modules = _imported_after(["--log-level", "info", "app", "list"])
    assert "app.cli.apps" in modules
    assert not {"app.runtime.runtime", "kubernetes_asyncio", "app.cli.stack"} & modules


def test_help_and_unknown_commands_see_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser(["nonsense"]).parse_args(["nonsense"])
    message = capsys.readouterr().err
    assert all(word in message for word in COMMANDS)


@pytest.mark.parametrize("word", sorted(COMMANDS))
def test_each_command_parses_with_only_its_own_module(word: str) -> None:
    with pytest.raises(SystemExit) as done:
        build_parser([word, "--help"]).parse_args([word, "--help"])
    assert done.value.code == 0
