"""What the pipeline benchmarks share: workloads, servers, worker processes, status reads.

- `workload`: the apps (a Git repository of N app directories of K resources each,
  and their Argo CD Applications).
- `servers`: NATS, Redis and the local cluster for a benchmark, each in its own process.
- `processes`: `sluice worker <name>` replicas, and their CPU seconds and peak RSS.
- `status`: every app's sync, health, revision and comparison count, in one round trip.
- `figures`: percentiles and the lines every benchmark prints.

Benchmarks measure; they assert nothing about time (tests never do either).
"""
