"""Every built-in check of the library is exercised by a case of this package."""

import importlib
import pkgutil

from app.engine.health.assess import group_kind
from app.engine.health.builtin import BUILTIN_CHECKS, builtin_check
from tests.unit.engine.health import library
from tests.unit.engine.health.test_assess import BUILT_IN_KINDS


def _case_kinds() -> set[object]:
    kinds = set()
    for found in pkgutil.iter_modules(library.__path__):
        if found.name.startswith("test_") and found.name != "test_coverage":
            module = importlib.import_module(f"{library.__name__}.{found.name}")
            kinds |= {group_kind(param.values[0].obj) for param in module.CASES}
    return kinds


def test_every_library_check_has_cases() -> None:
    core = {builtin_check(group_kind({"apiVersion": v, "kind": k})) for v, k in BUILT_IN_KINDS}
    tested = {builtin_check(kind) for kind in _case_kinds()}  # type: ignore[arg-type]
    untested = {str(kind) for kind, check in BUILTIN_CHECKS.items() if check not in core | tested}
    assert untested == set()
