"""What the pipeline benchmarks share: workloads, processes, status reads, figures.

- `workload`: the apps (a Git repository of N app directories of K resources each,
  and their Argo CD Applications).
- `latency`: one app on the embedded stack in this process, and the commit-to-synced clock.
- `fleet`: NATS, Redis, the local cluster and every worker, each in its own process.
- `fleet_command`: the fleet benchmarks' options, their run, and their shared figures.
- `processes`: those child processes, and their CPU seconds and peak RSS.
- `status`: every app's sync, health, revision and comparison count, in one round trip.
- `figures`: percentiles and the report every benchmark prints.
- `cpu`: CPU seconds per call of an in-process function, and ratios to a baseline.
- `options`: command-line value types (whole numbers, a new directory to keep).

Benchmarks measure; they assert nothing about time (tests never do either).
"""
