"""When the test kit's cluster counts as whole, and the reason it gives when it does not
(``testkit.redis_cluster.not_whole_because``): a failed wait names the node and the
condition first."""

from __future__ import annotations

from testkit.redis_cluster import SLOTS, NodeSays, NodeView, not_whole_because

THIRD = SLOTS // 3


def masters(*slots: tuple[int, int]) -> list[NodeView]:
    return [NodeView(f"m{i}", 7000 + i, "master", "-", False, (span,))
            for i, span in enumerate(slots)]


SPANS = ((0, THIRD - 1), (THIRD, 2 * THIRD - 1), (2 * THIRD, SLOTS - 1))
REPLICAS = [NodeView(f"r{i}", 7100 + i, "slave", f"m{i}", False, ()) for i in range(3)]


def everyone_sees(view: list[NodeView], link: str = "up") -> dict[int, NodeSays]:
    return {node.port: NodeSays("ok", tuple(view),
                                link if node.role == "slave" else None) for node in view}


def test_six_nodes_agreeing_on_three_masters_serving_every_slot_are_whole() -> None:
    assert not_whole_because(everyone_sees(masters(*SPANS) + REPLICAS), 6, 3) is None


def test_a_node_that_says_fail_is_named() -> None:
    seen = everyone_sees(masters(*SPANS) + REPLICAS)
    seen[7101] = NodeSays("fail", seen[7101].view, "up")
    assert not_whole_because(seen, 6, 3) == "node 7101 says cluster_state:fail"


def test_a_node_that_misses_one_is_named() -> None:
    seen = everyone_sees(masters(*SPANS) + REPLICAS)
    seen[7002] = NodeSays("ok", seen[7002].view[:5], None)
    assert not_whole_because(seen, 6, 3) == "node 7002 sees 5 nodes of 6"


def test_a_slot_being_moved_is_named() -> None:
    view = masters(*SPANS) + REPLICAS
    view[1] = NodeView("m1", 7001, "master", "-", False, (SPANS[1],), moving=True)
    assert not_whole_because(everyone_sees(view), 6, 3) == (
        "node 7000 sees a slot of [7001] being moved")


def test_a_slot_nobody_serves_is_counted() -> None:
    spans = (SPANS[0], SPANS[1], (2 * THIRD, SLOTS - 2))
    assert not_whole_because(everyone_sees(masters(*spans) + REPLICAS), 6, 3) == (
        f"node 7000 sees {SLOTS - 1} slots served of {SLOTS}")


def test_a_master_too_many_is_named() -> None:
    view = masters(*SPANS) + REPLICAS[:2] + [NodeView("r2", 7102, "master", "-", False, ())]
    assert not_whole_because(everyone_sees(view), 6, 3) == (
        "node 7000 sees 4 masters [7000, 7001, 7002, 7102], not 3")


def test_two_nodes_disagreeing_on_the_slots_are_named() -> None:
    seen = everyone_sees(masters(*SPANS) + REPLICAS)
    moved = masters((0, THIRD), (THIRD + 1, 2 * THIRD - 1), SPANS[2]) + REPLICAS
    seen[7102] = NodeSays("ok", tuple(moved), "up")
    assert not_whole_because(seen, 6, 3) == (
        "node 7102 sees other masters or slots than node 7000")


def test_a_replica_not_streaming_is_named_after_the_views_agree() -> None:
    seen = everyone_sees(masters(*SPANS) + REPLICAS)
    seen[7100] = NodeSays("ok", seen[7100].view, "down")
    assert not_whole_because(seen, 6, 3) == "replica 7100's link to its master is down"
