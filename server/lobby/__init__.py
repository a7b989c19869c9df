"""The HTTP lobby (room creation, seat tokens, public room list, health)."""
