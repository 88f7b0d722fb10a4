"""The `action_test.yaml` half of `sluice health test DIR`: a library's resource actions.

Argo CD's layout: `<group>/<Kind>/actions/` holds `discovery.lua`, one `<name>/action.lua`
per action and `action_test.yaml`, whose paths are relative to that `actions/` directory:

    discoveryTests:
    - inputPath: testdata/paused.yaml
      result: [{name: resume}, {name: restart, disabled: true}]
    actionTests:
    - action: resume
      inputPath: testdata/paused.yaml
      expectedOutputPath: testdata/resumed.yaml
      parameters: {replicas: "3"}        # optional, as actionParams

Each case runs in the workers' sandbox and prints PASS or FAIL with the first difference
(`app.engine.actions.expected`). An actions directory whose scripts do not compile, or
that has no cases, fails as a whole.
"""

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.cli.output import say, warn
from app.engine.actions import ActionError, LuaActions
from app.engine.actions.expected import discovery_difference, output_difference
from app.engine.actions.lua import ACTION, ACTIONS_DIR, DISCOVERY
from app.engine.health.customizations import TREE_NAME, tree_pattern
from app.engine.health.lua_sandbox import default_sandbox
from app.engine.manifests.bounded_yaml import YamlDocumentError, iter_yaml_documents
from app.engine.manifests.limits import ManifestLimits
from app.model.errors import SpecError

TESTS = "action_test.yaml"
MAX_FILE_BYTES = 4 * 2**20
"""Largest test, input or expected-output file read."""
LIMITS = ManifestLimits(max_documents=100)


@dataclass
class Tally:
    passed: int = 0
    failed: int = 0
    sets: int = 0

    def record(self, label: str, problem: str | None) -> None:
        if problem is None:
            say(f"PASS {label}")
            self.passed += 1
        else:
            warn(f"FAIL {label}: {problem}")
            self.failed += 1


class CaseError(Exception):
    """A case or file that cannot be read; the text says which and why."""


def action_dirs(root: Path) -> Iterator[tuple[list[str], Path]]:
    """Every `<group>/<Kind>/actions/` with a discovery.lua, in directory order."""
    for child in sorted(root.iterdir(), key=lambda c: c.name):
        if not child.is_dir() or child.is_symlink() or child.name == "testdata":
            continue
        if child.name == ACTIONS_DIR and (child / DISCOVERY).is_file():
            yield [], child
        else:
            for parts, found in action_dirs(child):
                yield [child.name, *parts], found


def _read(directory: Path, relative: object, what: str) -> str:
    if not isinstance(relative, str) or not relative:
        raise CaseError(f"{what} must be a path relative to {directory.name}/")
    path = (directory / relative).resolve()
    if not path.is_relative_to(directory.resolve()):
        raise CaseError(f"{what} {relative!r} leaves {directory.name}/")
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise CaseError(f"{what} {relative!r} is larger than {MAX_FILE_BYTES} bytes")
        return path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise CaseError(f"cannot read {what} {relative!r}: {e}") from None


def _documents(directory: Path, relative: object, what: str) -> list[Any]:
    """A file's YAML documents, read as Kubernetes reads them (timestamps stay strings)."""
    text = _read(directory, relative, what)
    try:
        return [data for _, _, data in iter_yaml_documents(text, LIMITS)]
    except YamlDocumentError as e:
        raise CaseError(f"{what} {relative!r} line {e.line}: {e.problem}") from None


def _object(directory: Path, relative: object, what: str) -> dict[str, Any]:
    docs = _documents(directory, relative, what)
    if len(docs) != 1 or not isinstance(docs[0], dict):
        raise CaseError(f"{what} {relative!r} must hold one Kubernetes object")
    return docs[0]


def _objects(directory: Path, relative: object, what: str) -> list[dict[str, Any]]:
    """The expected output: one object, several YAML documents, or a list of objects."""
    docs = _documents(directory, relative, what)
    if len(docs) == 1 and isinstance(docs[0], list):
        docs = docs[0]
    if not docs or not all(isinstance(d, dict) for d in docs):
        raise CaseError(f"{what} {relative!r} must hold Kubernetes objects")
    return docs


def _compiled(directory: Path, parts: list[str], origin: str) -> LuaActions:
    sandbox = default_sandbox()
    try:
        discovery = sandbox.compile_chunk(
            (directory / DISCOVERY).read_text("utf-8"), f"{origin}/{DISCOVERY}"
        )
        definitions = {
            child.name: sandbox.compile_chunk(
                (child / ACTION).read_text("utf-8"), f"{origin}/{child.name}/{ACTION}"
            )
            for child in sorted(directory.iterdir(), key=lambda c: c.name)
            if child.is_dir() and (child / ACTION).is_file()
        }
    except (OSError, UnicodeDecodeError) as e:
        raise SpecError(origin, f"cannot be read: {e}") from None
    return LuaActions(tree_pattern(parts, origin), origin, discovery, definitions)


def _discovery_case(actions: LuaActions, directory: Path, case: Mapping[str, Any]) -> str | None:
    result = case.get("result")
    if not isinstance(result, list) or not all(isinstance(r, dict) for r in result):
        raise CaseError("result must be a list of {name, disabled}")
    obj = _object(directory, case.get("inputPath"), "inputPath")
    try:
        return discovery_difference(result, actions.offered(obj))
    except ActionError as e:
        return str(e)


def _action_case(actions: LuaActions, directory: Path, case: Mapping[str, Any]) -> str | None:
    name = case.get("action")
    if not isinstance(name, str) or not name:
        raise CaseError("action must name the action to run")
    raw = case.get("parameters") or {}
    if not isinstance(raw, dict):
        raise CaseError("parameters must be a map of name to value")
    params = {str(k): "" if v is None else str(v) for k, v in raw.items()}
    obj = _object(directory, case.get("inputPath"), "inputPath")
    expected = _objects(directory, case.get("expectedOutputPath"), "expectedOutputPath")
    try:
        changes = actions.run(obj, name, params)
    except ActionError as e:
        return str(e)
    return output_difference(expected, changes)


def _cases(tests: object, key: str) -> list[Any]:
    if not isinstance(tests, dict):
        raise CaseError(f"must be a map with discoveryTests and actionTests, not {tests!r:.40}")
    cases = tests.get(key) or []
    if not isinstance(cases, list):
        raise CaseError(f"{key} must be a list")
    return cases


def _run_set(parts: list[str], directory: Path, tally: Tally) -> None:
    origin = "/".join([TREE_NAME, *parts, ACTIONS_DIR])
    try:
        actions = _compiled(directory, parts, origin)
    except SpecError as e:
        tally.record(origin, str(e))
        return
    if not (directory / TESTS).is_file():
        tally.record(origin, f"no {TESTS} beside {DISCOVERY}")
        return
    try:
        tests = (_documents(directory, TESTS, "the test file") or [{}])[0]
        discovery, runs = _cases(tests, "discoveryTests"), _cases(tests, "actionTests")
    except CaseError as e:
        tally.record(f"{origin}/{TESTS}", str(e))
        return
    if not discovery and not runs:
        tally.record(f"{origin}/{TESTS}", "has no discoveryTests or actionTests")
        return
    for i, case in enumerate(discovery):
        where = case.get("inputPath") if isinstance(case, dict) else None
        label = f"{origin} discovery {where or f'discoveryTests[{i}]'}"
        try:
            tally.record(label, _discovery_case(actions, directory, case))
        except (CaseError, AttributeError) as e:
            tally.record(label, f"cannot read the case: {e}")
    for i, case in enumerate(runs):
        name = case.get("action") if isinstance(case, dict) else None
        where = case.get("inputPath") if isinstance(case, dict) else None
        label = f"{origin} {name or 'action'} {where or f'actionTests[{i}]'}"
        try:
            tally.record(label, _action_case(actions, directory, case))
        except (CaseError, AttributeError) as e:
            tally.record(label, f"cannot read the case: {e}")


def run_action_tests(root: Path) -> Tally:
    """Run every actions directory's cases under `root`, each printed PASS or FAIL."""
    tally = Tally()
    for parts, directory in action_dirs(root):
        tally.sets += 1
        _run_set(parts, directory, tally)
    return tally
