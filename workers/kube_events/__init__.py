"""The events worker (`worker`): Kubernetes Events on the Applications, as Argo CD writes.

It consumes SLUICE_EVENTS through the durable consumer `sluice-kube-events` (every
replica pulls from it, so each event is written once), turns each event into the core/v1
Event Argo CD would record (`app.engine.kube_events`), spends a token of the app's and
the process's budget (`app.engine.event_budget`) and writes the Event on the
control-plane cluster, aggregated (`app.runtime.kube_events`). No other stage waits on
it: the pipeline only emits events, and a slow or refusing API server delays Events only.
"""
