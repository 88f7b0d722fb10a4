"""`sluice health test DIR`: run a resource_customizations library's own tests.

DIR is laid out as Argo CD's: `<group>/<Kind>/health.lua` (core kinds: `<Kind>/`), with
`health_test.yaml` beside each (`tests: [{healthStatus: {status, message}, inputPath}]`,
inputs relative to that directory), and `<group>/<Kind>/actions/` with `discovery.lua`,
`<name>/action.lua` and `action_test.yaml` (`discoveryTests`, `actionTests`: see
`app.cli.action_tests`). Every case is run in the same sandbox the workers use and
printed PASS or FAIL with what differed; the exit code is 1 if any case fails, a script
does not compile, or a directory has no tests. The workers load the same directory with
`SLUICE_RESOURCE_CUSTOMIZATIONS_DIR`.
"""

import argparse
from pathlib import Path
from typing import Any

from app.cli.action_tests import LIMITS, run_action_tests
from app.cli.output import say, warn
from app.engine.health.customizations import HEALTH_SCRIPT, TreeEntry, load_tree
from app.engine.health.lua_sandbox import compile_check
from app.engine.manifests.bounded_yaml import YamlDocumentError, iter_yaml_documents
from app.model.errors import SpecError

TESTS = "health_test.yaml"


def _read_yaml(path: Path) -> Any:
    """The file's first YAML document, read as Kubernetes reads it (timestamps stay strings)."""
    docs = [data for _, _, data in iter_yaml_documents(path.read_text("utf-8"), LIMITS)]
    return docs[0] if docs else None


def _cases(entry: TreeEntry, directory: Path) -> tuple[int, int]:
    """(passed, failed) for one `<group>/<Kind>/` directory, each case printed."""
    where = entry.origin.removesuffix("/" + HEALTH_SCRIPT)
    try:
        check = compile_check((directory / HEALTH_SCRIPT).read_text("utf-8"), entry.origin)
    except SpecError as e:
        warn(f"FAIL {where}: {e}")
        return 0, 1
    if not (directory / TESTS).is_file():
        warn(f"FAIL {where}: no {TESTS} beside {HEALTH_SCRIPT}")
        return 0, 1
    try:
        tests = (_read_yaml(directory / TESTS) or {}).get("tests") or []
    except (YamlDocumentError, OSError, AttributeError) as e:
        warn(f"FAIL {where}/{TESTS}: not a map with a tests list ({e})")
        return 0, 1
    passed = failed = 0
    for i, case in enumerate(tests):
        label = (
            f"{where} {case.get('inputPath', f'tests[{i}]')}" if isinstance(case, dict) else where
        )
        try:
            expected = case["healthStatus"]
            obj = _read_yaml(directory / case["inputPath"])
        except (KeyError, TypeError, OSError, YamlDocumentError) as e:
            warn(f"FAIL {label}: cannot read the case ({e})")
            failed += 1
            continue
        got = check(obj)
        want = (str(expected.get("status", "")), str(expected.get("message") or ""))
        if (got.status.value, got.message) == want:
            say(f"PASS {label}")
            passed += 1
        else:
            got_text = f"{got.status.value} {got.message!r}"
            warn(f"FAIL {label}: expected {want[0]} {want[1]!r}, got {got_text}")
            failed += 1
    return passed, failed


def test_library(args: argparse.Namespace) -> int:
    root = Path(args.directory)
    if not root.is_dir():
        warn(f"error: {root} is not a directory")
        return 2
    try:
        entries = load_tree(root)
    except SpecError as e:
        warn(f"error: {e}")
        return 2
    passed = failed = 0
    for entry in entries:
        relative = entry.origin.split("/")[1:-1]
        p, f = _cases(entry, root.joinpath(*relative))
        passed, failed = passed + p, failed + f
    actions = run_action_tests(root)
    passed, failed = passed + actions.passed, failed + actions.failed
    say(
        f"{passed} passed, {failed} failed, {len(entries)} health check(s), "
        f"{actions.sets} action set(s) in {root}"
    )
    return 1 if failed or not (entries or actions.sets) else 0


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    group = sub.add_parser("health", help="custom health checks (resource_customizations)")
    commands = group.add_subparsers(dest="health_command", metavar="COMMAND", required=True)
    testing = commands.add_parser(
        "test",
        help="run the health_test.yaml and actions/action_test.yaml cases of a "
        "<group>/<Kind>/ library",
    )
    testing.add_argument("directory", help="the library's root directory")
    testing.set_defaults(run=test_library)
