"""What the sync and hook workers share: the loop around `app.engine.sync`, in parts.

An operation is advanced step by step, each step persisted before the next
(docs/pipeline.md, "Order of events"). The workers themselves (`workers/sync/sync_worker.py`,
`workers/sync/hook_worker.py`) only subscribe and name their role; the parts here do the rest,
each named for what it does:

- `loop`: the operation loop, top to bottom: load, ask the engine what the message
  calls for (`app.engine.sync.turns`), make the move, persist, follow (take the next step
  now, schedule a WAIT or RETRY timer, hand a step to the hook worker, finish).
- `stepping`: the shell both workers run: a Stage over their channel coalesced by step,
  one `OperationContext` per message, each run marked in the log.
- `planning`: the first step of an operation (and each retry) turns the operation into
  a plan: manifests at its revision, placed and tracked; the managed live set from the
  (warm) live cache; the destination's discovery; the project's verdicts.
- `observing`: before a step, GET exactly the objects the step looks at
  (`app.engine.sync.reads`), concurrently, under one deadline, with their health.
- `performing`: run a step's actions (`workers.sync.executor`), record the results, put the
  applied objects in the live cache.
- `context`: one operation's identity and its writes: persist a state with the step
  compare-and-set, report hook phase changes, hand a step to the hook worker.
- `finishing`: once an operation is done: history, the Application's `operationState` and
  `history`, the succeeded/failed event, and the refresh that follows.

Every part logs one event per decision with the app, stage, revision and operation id.
"""
