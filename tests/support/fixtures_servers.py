"""Session fixtures for real NATS and Redis servers (owned by the bus/store work)."""
