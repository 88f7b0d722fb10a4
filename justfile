# Sluice task runner. Every recipe installs what it needs into .venv first.

set shell := ["bash", "-euo", "pipefail", "-c"]

venv := justfile_directory() / ".venv"
bin := venv / "bin"

# Bring Sluice up on its embedded default: local cluster, NATS, Redis, example apps.
up *ARGS: install
    {{bin}}/sluice up {{ARGS}}

# Run the whole test suite, one pytest process per core, a test file per process at a time
# (`just test -n 0 ...` runs in this process, for a debugger or one quick test).
test *ARGS: install
    rc=0; {{bin}}/python -m pytest --numprocesses=logical --dist=loadfile {{ARGS}} || rc=$?; if [ $rc -eq 5 ]; then echo "no tests collected"; rc=0; fi; exit $rc

# The chaos suite: every fault scenario over several trials (CHAOS_TRIALS, default 3, of
# CHAOS_APPS apps, default 10; CHAOS_SEED repeats a run), then the figures per scenario.
chaos *ARGS: install
    {{bin}}/python -m pytest tests/chaos --chaos -q -rxXs {{ARGS}}

# ruff, mypy and the import-layer contracts.
lint: install
    {{bin}}/ruff check app workers tests bench
    {{bin}}/ruff format --check app workers tests bench
    {{bin}}/mypy
    {{bin}}/lint-imports
    if git grep -nE '^(<<<<<<<|>>>>>>>)( |$)'; then echo 'merge conflict markers committed (above)'; exit 1; fi

# Format the code in place.
fmt: install
    {{bin}}/ruff format app workers tests bench
    {{bin}}/ruff check --fix app workers tests bench

# Run the benchmarks (figures printed next to their baselines).
bench *ARGS: install
    {{bin}}/python -m bench {{ARGS}}

# Create .venv and install the project with its test and dev extras (only when pyproject changed).
install:
    #!/usr/bin/env bash
    set -euo pipefail
    cd {{justfile_directory()}}
    stamp=.venv/.stamp-$(sha256sum pyproject.toml | cut -c1-16)
    if [ ! -f "$stamp" ]; then
      python3 -m venv .venv
      .venv/bin/python -m pip install -q -q --upgrade pip
      .venv/bin/python -m pip install -q -q -e '.[test,dev]'
      rm -f .venv/.stamp-*
      touch "$stamp"
    fi
