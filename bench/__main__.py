"""`python -m bench` lists the benchmarks; `python -m bench NAME [ARGS]` runs one."""

import importlib
import pkgutil
import sys
from types import ModuleType

import bench

RUNNER_MODULES = {"__main__"}


def benchmarks() -> dict[str, ModuleType]:
    """Every benchmark module of the package, by name."""
    found = {}
    for info in pkgutil.iter_modules(bench.__path__):
        if info.name in RUNNER_MODULES or info.ispkg:
            continue
        module = importlib.import_module(f"bench.{info.name}")
        if callable(getattr(module, "main", None)):
            found[info.name] = module
    return found


def summary(module: ModuleType) -> str:
    return (module.__doc__ or "").strip().splitlines()[0] if module.__doc__ else ""


def run(argv: list[str]) -> int:
    available = benchmarks()
    if not argv or argv[0] in {"-h", "--help", "list"}:
        print("usage: python -m bench NAME [ARGS]\n\nbenchmarks:")
        width = max(map(len, available), default=0)
        for name, module in sorted(available.items()):
            print(f"  {name:<{width}} {summary(module)}")
        return 0
    name, *rest = argv
    if name not in available:
        known = ", ".join(sorted(available)) or "none"
        print(f"no benchmark named {name!r} (known: {known})", file=sys.stderr)
        return 2
    result: int = available[name].main(rest)
    return result


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
