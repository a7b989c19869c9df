"""``GET /metrics`` (issue 18, observability), read the way Prometheus reads it
(``text_string_to_metric_families``), from two real nodes in this process on a real Redis:
a room owned by one node, seat A there, seat B and a spectator relayed through the other;
commands accepted, rejected, repeated; an ARO window closed by its deadline. The counters
are the process's (both nodes here), so the test reads how far each one moved.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx
import pytest
from prometheus_client import REGISTRY
from prometheus_client.metrics import MetricWrapperBase
from prometheus_client.parser import text_string_to_metric_families

from protocol.messages import Accepted, Events, Rejected
from server.app import create_app
from server.cluster.node import ClusterNode
from server.cluster.renewal import connect_sync
from server.config import Settings
from server.store.redis_store import RedisRoomStore
from testkit.redis_process import RedisProcess
from testkit.server_process import REPO
from testkit.serving import running_server
from testkit.wsclient import Client
from tests.doubles.fake_engine import FakeEngine
from tests.helpers import settings

pytestmark = pytest.mark.redis

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def parse(text: str) -> Samples:
    return {(sample.name, frozenset(sample.labels.items())): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


TOKEN = "test-metrics-token"
"""``metrics_token`` of these tests' nodes: /metrics on the game's port needs it
(test_metrics_privacy.py)."""


async def scrape(http: httpx.AsyncClient) -> Samples:
    response = await http.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")
    return parse(response.text)


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def moved(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


def in_process(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@contextlib.asynccontextmanager
async def cluster_node(redis_url: str, node_id: str, config: Settings) -> AsyncIterator[str]:
    store = RedisRoomStore.from_url(redis_url)
    cluster = ClusterNode(store.client, node_id, config, connect_sync(store.url, config.lease_s))
    app = create_app(config, engine=FakeEngine(), store=store, cluster=cluster)
    async with running_server(config, app=app) as url:
        yield url


def commands(before: Samples, after: Samples) -> Mapping[tuple[str, str], float]:
    """How far ``referee_commands_total`` moved, by (outcome, reason), where it moved."""
    changes = {}
    for (name, labels), count in after.items():
        change = count - before.get((name, labels), 0.0)
        if name == "referee_commands_total" and change:
            changes[(dict(labels)["outcome"], dict(labels)["reason"])] = change
    return changes


async def test_metrics_count_rooms_sockets_commands_windows_appends_and_relays(
        redis_server: RedisProcess) -> None:
    config = settings(lease_s=5.0, lease_renew_s=1.0, metrics_token=TOKEN)
    gauges = ("referee_rooms", "referee_relays")
    at_start = {name: in_process(name) for name in gauges}
    sockets_at_start = {role: in_process("referee_sockets", role=role)
                        for role in ("seat_a", "seat_b", "spectator")}
    async with (cluster_node(redis_server.url, "metrics-1", config) as owner,
                cluster_node(redis_server.url, "metrics-2", config) as relaying,
                httpx.AsyncClient(base_url=owner) as http):
        before = await scrape(http)
        created = (await http.post("/api/rooms", json={"ruleset": "n5",
                                                       "aro_window_s": 0.2})).json()
        room = created["room"]
        a = await Client.connect(owner, room, created["seats"]["A"]["token"])
        b = await Client.connect(relaying, room, created["seats"]["B"]["token"])
        spectator = await Client.connect(relaying, room)
        try:
            assert isinstance(await a.command({"type": "act", "value": 1}, id="a1"), Accepted)
            assert isinstance(await a.command({"type": "act", "value": 1}, id="a1",
                                              version=0), Accepted)  # repeated: its answer
            await b.until(Events)  # at A's version: B is refused for its turn, not as stale
            rejected = await b.command({"type": "act", "value": 2})
            assert isinstance(rejected, Rejected) and rejected.code == "not_your_turn"
            read_only = await spectator.command({"type": "act", "value": 3})
            assert isinstance(read_only, Rejected) and read_only.code == "spectator_read_only"
            assert isinstance(await a.command({"type": "shoot"}), Accepted)  # opens a window
            await b.until(Events, lambda e: any(event.get("e") == "window_closed"
                                                for event in e.events))  # by its deadline
            after = await scrape(http)
        finally:
            for client in (a, b, spectator):
                await client.close()

    # B's refusal for its turn is its own: not counted (test_metrics_privacy.py).
    assert commands(before, after) == {("accepted", ""): 2, ("repeated", ""): 1,
                                       ("rejected", "spectator_read_only"): 1}
    assert moved(before, after, "referee_command_latency_seconds_count") == 4
    assert moved(before, after, "referee_command_latency_seconds_sum") > 0
    # Three appends: the two accepted commands with events, and the window's close.
    assert moved(before, after, "referee_redis_append_seconds_count") == 3
    assert sum(moved(before, after, "referee_redis_append_failures_total", kind=kind)
               for kind in ("unavailable", "stale", "error")) == 0
    assert moved(before, after, "referee_aro_close_lateness_seconds_count") == 1
    assert moved(before, after, "referee_aro_close_lateness_seconds_sum") >= 0

    assert moved(before, after, "referee_rooms") == 1
    for role in ("seat_a", "seat_b", "spectator"):
        assert moved(before, after, "referee_sockets", role=role) == 1, role
    assert moved(before, after, "referee_lease_claims_total", outcome="claimed") == 1
    assert moved(before, after, "referee_lease_claims_total", outcome="held_elsewhere") == 1
    assert moved(before, after, "referee_relays") == 1
    assert moved(before, after, "referee_relays_opened_total") == 1
    # Through the relay to the owner: two joins (B's command is not counted).
    assert moved(before, after, "referee_relay_messages_total", direction="to_owner") == 2
    assert moved(before, after, "referee_relay_messages_total", direction="from_owner") > 0

    # The process collectors are there too.
    assert value(after, "process_cpu_seconds_total") > 0
    assert value(after, "process_resident_memory_bytes") > 0

    # Both nodes shut down: every room, socket and relay they counted is gone again.
    assert {name: in_process(name) for name in gauges} == at_start
    assert {role: in_process("referee_sockets", role=role)
            for role in sockets_at_start} == sockets_at_start


async def test_metrics_is_plain_prometheus_text_on_a_node_with_the_memory_store() -> None:
    async with (running_server(settings(metrics_token=TOKEN), FakeEngine()) as url,
                httpx.AsyncClient(base_url=url) as http):
        samples = await scrape(http)
    names = {name for name, _ in samples}
    assert {"referee_rooms", "referee_command_latency_seconds_bucket",
            "python_gc_collections_total", "process_cpu_seconds_total"} <= names


def referee_families() -> list[Any]:
    from server import metrics

    return [value for value in vars(metrics).values()
            if isinstance(value, MetricWrapperBase) and not value._labelvalues]  # not children


def test_every_metric_is_named_by_the_conventions_and_documented() -> None:
    families = referee_families()
    assert len(families) == 24
    table = (REPO / "docs" / "server.md").read_text()
    table = table[table.index("## Metrics"):table.index("## Seams for several nodes")]
    for family in families:
        name: str = family._name
        assert name.startswith("referee_"), name
        exposed = name + "_total" if family._type == "counter" else name
        if family._type == "histogram":
            assert name.endswith("_seconds"), name
        assert f"| `{exposed}` | {family._type} |" in table, f"docs/server.md lacks {exposed}"
