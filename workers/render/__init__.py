"""The render worker (`worker`): an app's revisions resolved and their manifests cached."""
