-- cert-manager Certificate (cert-manager.io/v1).
-- Issuing=True wins (a renewal in flight); then Ready decides; before cert-manager has
-- written any condition the certificate is still being requested.

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

local issuing = condition("Issuing")
if issuing ~= nil and issuing.status == "True" then
  return { status = "Progressing", message = issuing.message }
end

local ready = condition("Ready")
if ready == nil then
  return { status = "Progressing", message = "Waiting for certificate" }
end
if ready.status == "True" then
  return { status = "Healthy", message = ready.message }
end
if ready.status == "False" then
  return { status = "Degraded", message = ready.message }
end
return { status = "Progressing", message = ready.message or "Waiting for certificate" }
