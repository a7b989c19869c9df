"""Game rooms: one actor task per room, fed through a bounded inbox."""
