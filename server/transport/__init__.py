"""The websocket transport: handshake, limits, per-socket bounded send queues."""
