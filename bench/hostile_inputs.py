"""Refusing hostile input: CPU per refusal against accepting a benign input of its kind.

The unit tests hold each refusal to what matters and does not depend on the machine (the
right error, peak memory, comparisons made); this benchmark measures what each costs.
Every hostile input is timed next to a baseline measured in the same run on a benign
input of the same kind, so the ratio is what to compare between machines:

- manifests (`app.engine.manifests.parse_manifests`): invalid YAML, a "billion laughs"
  bomb, a document without `kind`, a 50 MB document and 5,000 keys with one duplicate,
  against accepting a 5,000-key ConfigMap (54 KB);
- semver constraints (`app.repo.constraints.parse_constraint`): three ReDoS shapes,
  against `>=1.2.0 <2`;
- a directory glob (`app.repo.globs`): `*a*a…*b` over 4,000 characters, against `*.yaml`
  over the same path;
- jqPathExpressions (`app.engine.normalize.jq_paths`): the costliest admitted shape over
  a 200-item object, against `.items[0].name` over the same object.
"""

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass

from app.engine.manifests import parse_manifests
from app.engine.normalize.jq_paths import compile_jq_path
from app.model.errors import SpecError
from app.repo.constraints import parse_constraint
from app.repo.globs import compile_directory_glob
from bench.support.cpu import cpu_per_call, ratio
from bench.support.figures import Line, report

CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"
KEYS = 5_000
GENEROUS_DEADLINE = 600.0


@dataclass(frozen=True, slots=True)
class Case:
    group: str
    name: str
    call: Callable[[], object]


def _billion_laughs() -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        refs = ",".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    return CONFIG_MAP.format(name="bomb") + "\n".join(lines) + "\n"


def _many_keys(duplicate: bool) -> str:
    body = "".join(f"  k{i}: v\n" for i in range(KEYS))
    return CONFIG_MAP.format(name="a") + "data:\n" + body + ("  k0: again\n" if duplicate else "")


def _refusing(text: str) -> Callable[[], object]:
    def call() -> object:
        try:
            parse_manifests(text, source="app.yaml")
        except SpecError as e:
            return e
        raise AssertionError("the hostile manifest was accepted")

    return call


def _manifests() -> tuple[Case, list[Case]]:
    benign = _many_keys(duplicate=False)
    hostile = {
        "invalid YAML": "a: [\n" * 1000,
        "YAML bomb (billion laughs)": _billion_laughs(),
        "missing kind": "apiVersion: v1\nmetadata: {name: a}\n",
        "50 MB document": CONFIG_MAP.format(name="big")
        + "data:\n  blob: '"
        + "x" * (50 * 1024 * 1024)
        + "'\n",
        "5,000 keys, one duplicate": _many_keys(duplicate=True),
    }
    baseline = Case(
        "manifests",
        f"accepting a {KEYS:,}-key ConfigMap",
        lambda: parse_manifests(benign, source="app.yaml"),
    )
    return baseline, [Case("manifests", name, _refusing(t)) for name, t in hostile.items()]


def _constraints() -> tuple[Case, list[Case]]:
    hostile = {
        "spaces": ">=1" + " " * 250 + "!",
        "many comparators": ">=1 " * 60 + "!",
        "long": "1" * 300,
    }
    baseline = Case("semver", "parsing `>=1.2.0 <2`", lambda: parse_constraint(">=1.2.0 <2"))
    cases = [Case("semver", name, lambda t=t: parse_constraint(t)) for name, t in hostile.items()]
    return baseline, cases


def _globs() -> tuple[Case, list[Case]]:
    text = "a" * 4000
    plain = compile_directory_glob("*.yaml", field="bench")
    nasty = compile_directory_glob("*a*a*a*a*a*a*a*a*a*a*a*a*b", field="bench")
    baseline = Case("glob", "`*.yaml` over 4,000 characters", lambda: plain.matches(text))
    return baseline, [Case("glob", "`*a*a…*b` over 4,000 characters", lambda: nasty.matches(text))]


def _jq() -> tuple[Case, list[Case]]:
    big = {
        "items": [
            {"name": f"n{i}", "labels": {f"k{j}": "a" * 60 for j in range(20)}} for i in range(200)
        ]
    }
    plain = compile_jq_path(".items[0].name", "bench")
    worst = compile_jq_path('.. | .. | select(type == "string" and test("^a+b$"))', "bench")
    size = len(json.dumps(big)) // 1024
    baseline = Case(
        "jq",
        f"`.items[0].name` over {size} KiB",
        lambda: plain.delete_from(big, GENEROUS_DEADLINE),
    )
    hostile = Case(
        "jq",
        "the costliest admitted shape over the same object",
        lambda: worst.delete_from(big, GENEROUS_DEADLINE),
    )
    return baseline, [hostile]


def main(argv: list[str]) -> int:
    argparse.ArgumentParser(prog="bench hostile_inputs", description=__doc__).parse_args(argv)
    lines: list[Line] = []
    for baseline, cases in (_manifests(), _constraints(), _globs(), _jq()):
        base = cpu_per_call(baseline.call)
        lines.append(Line(f"{baseline.group}: baseline, {baseline.name}", f"{base * 1e3:.3f} ms"))
        for case in cases:
            spent = cpu_per_call(case.call)
            lines.append(
                Line(
                    f"{case.group}: {case.name}",
                    f"{spent * 1e3:.3f} ms, {ratio(spent, base)} the baseline",
                )
            )
    report(
        "hostile_inputs: CPU per refusal (smallest of 3 rounds)",
        "each group against its own baseline, measured in the same run",
        lines,
        "the benign input of each group (first line of the group)",
        ["python", "-m", "bench", "hostile_inputs", *argv],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
