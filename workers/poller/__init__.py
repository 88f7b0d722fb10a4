"""The Git poller (`worker`): refreshes the apps whose branch or tag moved."""
