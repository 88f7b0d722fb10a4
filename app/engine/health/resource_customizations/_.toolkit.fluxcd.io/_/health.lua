-- Every Flux kind (*.toolkit.fluxcd.io: Kustomization, HelmRelease, GitRepository,
-- HelmRepository, OCIRepository, ImagePolicy...), read from status.conditions the way
-- Kubernetes' kstatus convention defines them: Ready says whether the last
-- reconciliation worked, Reconciling that one is in flight, Stalled that it cannot
-- progress without a change. A result counts only once the controller has observed
-- the current generation.

local function condition(kind)
  if obj.status == nil or obj.status.conditions == nil then
    return nil
  end
  for _, c in ipairs(obj.status.conditions) do
    if c.type == kind then
      return c
    end
  end
  return nil
end

local function health(status, message)
  return { status = status, message = message or "" }
end

if obj.spec ~= nil and obj.spec.suspend == true then
  return health("Suspended", "Reconciliation is suspended")
end

if obj.status == nil then
  return health("Progressing", "Waiting for the controller to report status")
end

local generation = obj.metadata.generation
local observed = obj.status.observedGeneration
if generation ~= nil and (observed == nil or observed < generation) then
  return health("Progressing", "Waiting for the controller to observe generation " .. generation)
end

local stalled = condition("Stalled")
if stalled ~= nil and stalled.status == "True" then
  return health("Degraded", stalled.message)
end

local ready = condition("Ready")
if ready ~= nil and ready.status == "True" then
  return health("Healthy", ready.message)
end

local reconciling = condition("Reconciling")
if reconciling ~= nil and reconciling.status == "True" then
  return health("Progressing", reconciling.message)
end

if ready == nil then
  return health("Progressing", "Waiting for the Ready condition")
end
if ready.status == "False" then
  return health("Degraded", ready.message)
end
return health("Progressing", ready.message)
