"""Room storage behind a small interface (``RoomStore``); in memory for now."""

from server.store.interface import (
    Answer,
    Deadline,
    Listing,
    RoomMeta,
    RoomSettings,
    RoomStore,
    StaleWriter,
    StorageUnavailable,
    StoredRoom,
    Timeline,
)
from server.store.memory import MemoryRoomStore

__all__ = [
    "Answer",
    "Deadline",
    "Listing",
    "MemoryRoomStore",
    "RoomMeta",
    "RoomSettings",
    "RoomStore",
    "StaleWriter",
    "StorageUnavailable",
    "StoredRoom",
    "Timeline",
]
