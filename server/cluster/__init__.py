"""Several nodes against one Redis: room leases with fencing, the room bus, relays."""
