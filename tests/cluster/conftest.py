"""Multi-process tests: the store tests' real redis-server, plus server processes."""

from tests.store.conftest import redis_server

__all__ = ["redis_server"]
