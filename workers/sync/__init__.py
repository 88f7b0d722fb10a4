"""What the sync and hook workers share: the loop around `app.engine.sync`, in parts.

An operation is advanced step by step, each step persisted before the next
(docs/pipeline.md, "Order of events"). The workers themselves (`workers/sync/sync_worker.py`,
`workers/sync/hook_worker.py`) only decide what a message asks for (`arrivals`); the parts here do
the rest, each named for what it does:

- `planning`: the first step of an operation (and each retry) turns the operation into
  a plan: manifests at its revision, placed and tracked; the managed live set from the
  (warm) live cache; the destination's discovery; the project's verdicts.
- `observing`: before a step, GET exactly the objects the step looks at
  (`app.engine.sync.reads`), concurrently, under one deadline, with their health.
- `stepping`: the loop both workers run: a Stage over their channel coalesced by step,
  one `OperationContext` per message, each run marked in the log.
- `arrivals`: whether a step message names the step to take, is the message that stored
  the current state delivered again (it resumes), or is stale.
- `context`: one operation's identity and its writes: persist a state with the step
  compare-and-set, report hook phase changes, follow what the engine said comes next
  (take the next step now, schedule a WAIT or RETRY timer, hand a step to the hook worker).
- `performing`: run a step's actions (`workers.sync.executor`), record the results, persist,
  put the applied objects in the live cache, and follow.
- `finishing`: once an operation is done: history, the Application's `operationState` and
  `history`, the succeeded/failed event, and the refresh that follows.

Every part logs one event per decision with the app, stage, revision and operation id.
"""
