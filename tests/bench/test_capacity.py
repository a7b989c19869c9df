"""``bench.capacity`` at its smallest: one room, a few Orders; what docs/capacity.md cites is there
and counted (no timing asserts)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench import capacity
from bench.run_history import read

pytestmark = pytest.mark.slow  # starts redis-server and a node, plays Orders over sockets

needs_redis = pytest.mark.skipif(shutil.which("redis-server") is None
                                 and not Path("/usr/bin/redis-server").exists(),
                                 reason="redis-server is not installed")

CITED = (  # the figures docs/capacity.md quotes, by their path in the results
    "per_game/requests", "phases/orders/redis_per_order/commands",
    "phases/orders/redis_per_order/requests", "phases/orders/redis_per_order/bytes",
    "phases/setup/redis_per_game/bytes",
    "phases/orders/websocket/seat/per_order_per_socket/wire_bytes_in",
    "phases/orders/websocket/seat/per_order_per_socket/bytes_out",
    "phases/orders/websocket/spectator/per_order_per_socket/frames_in",
    "phases/orders/websocket/spectator/per_order_per_socket/wire_bytes_in",
    "phases/join/spectator_join_bytes_in", "spectator_join_bytes_at_end",
    "memory/after_setup/bytes", "memory/at_end/bytes",
    "lease/per_room_per_round/requests", "lease/per_room_per_round/bytes",
)


@needs_redis
def test_one_short_game_is_counted_and_recorded(tmp_path: Path) -> None:
    history = tmp_path / "history.jsonl"
    result = capacity.main(["--games", "1", "--spectators", "1", "--orders", "2",
                            "--lease-rounds", "1", "--idle-s", "0.2",
                            "--history", str(history)])
    [entry] = read(history)  # its record, in the history it was given
    assert (entry["kind"], entry["source"], entry["runs"]) == ("capacity", "bench.capacity", 1)
    for path in CITED:
        assert entry["figures"][path] > 0, path
    # the measurement takes its own INFO calls out: an empty window counts nothing
    calibration = result["calibration"]
    assert (calibration["commands"], calibration["bytes_in"], calibration["bytes_out"]) == (0, 0, 0)
    # nothing but the games in the game phases: the node renewed no lease meanwhile
    assert result["lease_rounds_during_games"] == 0
    assert result["idle"]["redis"]["commands"] == 0
    # two Orders of one game; each command is one events frame to every socket of the room
    orders = result["phases"]["orders"]
    assert result["orders"] == 2 and not result["finished"]
    # (its events frame; other frames, such as a spectator count, come when the server's
    # pacing sends them)
    seat = orders["websocket"]["seat"]
    assert seat["events_frames_in"] == orders["websocket"]["spectator"]["events_frames_in"] * 2
    assert seat["frames_out"] * 2 == seat["events_frames_in"]  # one command, both seats told
    assert result["frames_by_type"]["spectator"]["events"] > 0
    # an accepted command is one script call (the append), whatever it calls inside
    assert orders["redis"]["by_command"]["evalsha"] == orders["redis"]["requests"]
    assert orders["redis"]["requests"] == seat["frames_out"]
    assert orders["redis"]["commands"] > orders["redis"]["requests"]
    # a room in play has every key; none expires while its game is played
    memory = result["memory"]["at_end"]
    assert set(memory["by_key"]) == {"state", "events", "answers:A", "answers:B", "lease"}
    assert all(size > 0 for size in memory["by_key"].values())
    assert memory["expires_in_s"] is None
    assert memory["events"] > result["memory"]["after_setup"]["events"]
