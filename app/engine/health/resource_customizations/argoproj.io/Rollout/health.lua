-- Argo Rollouts Rollout (argoproj.io/v1alpha1).
-- Rollouts v1.0 and later report status.phase (Healthy, Progressing, Paused, Degraded)
-- with a message; that decides once the controller has observed the current spec.
-- Older controllers have no phase and are judged from their replica counts.

local function condition(kind)
  if obj.status.conditions == nil then
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
  return { status = status, message = message }
end

if obj.status == nil then
  return health("Progressing", "Waiting for the rollout controller to report status")
end

local invalid = condition("InvalidSpec")
if invalid ~= nil and invalid.status == "True" then
  return health("Degraded", invalid.message)
end

-- observedGeneration is a string ("3") since v1.0, a pod-template hash before.
local observed = tonumber(obj.status.observedGeneration)
local generation = obj.metadata.generation
if observed ~= nil and generation ~= nil and observed < generation then
  return health("Progressing", "Waiting for rollout spec update to be observed")
end

local phase = obj.status.phase
local message = obj.status.message
if phase == "Degraded" then
  return health("Degraded", message or "Rollout is degraded")
elseif phase == "Paused" then
  return health("Suspended", message or "Rollout is paused")
elseif phase == "Progressing" then
  return health("Progressing", message or "Rollout is progressing")
elseif phase == "Healthy" then
  return health("Healthy", message or "")
end

if obj.spec.paused == true then
  return health("Suspended", "Rollout is paused")
end
local desired = obj.spec.replicas or 1
local updated = obj.status.updatedReplicas or 0
local replicas = obj.status.replicas or 0
local available = obj.status.availableReplicas or 0
if updated < desired then
  return health("Progressing", "Waiting for roll out to finish: more replicas need to be updated")
end
if replicas > updated then
  return health("Progressing", "Waiting for roll out to finish: old replicas are pending termination")
end
if available < updated then
  return health("Progressing", "Waiting for roll out to finish: updated replicas are still becoming available")
end
return health("Healthy", "")
