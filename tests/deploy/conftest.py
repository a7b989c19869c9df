"""The loopback topology (redis-server, two nodes, nginx) for the deploy tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.deploy.loopback import Topology, start, stop


@pytest.fixture(scope="module")
def shared_topology(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Topology]:
    """One topology for the tests of a module that leave it as they found it."""
    topology = start(tmp_path_factory.mktemp("loopback"))
    try:
        yield topology
    finally:
        stop(topology)


@pytest.fixture
def own_topology(tmp_path: Path) -> Iterator[Topology]:
    """A topology for one test that stops or kills parts of it."""
    topology = start(tmp_path / "loopback")
    try:
        yield topology
    finally:
        stop(topology)
