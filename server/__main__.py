"""``python -m server``: serve the referee on http://127.0.0.1:8000 (see --help)."""

from __future__ import annotations

import argparse
import logging

import uvicorn

from server.app import create_app
from server.config import Settings


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m server", description=__doc__)
    parser.add_argument("--host", help="interface to bind (default 127.0.0.1, env REFEREE_HOST)")
    parser.add_argument("--port", type=int, help="port (default 8000, env REFEREE_PORT)")
    parser.add_argument("--log-level", default="info")
    args = parser.parse_args(argv)
    overrides: dict[str, object] = {}
    if args.host is not None:
        overrides["host"] = args.host
    if args.port is not None:
        overrides["port"] = args.port
    settings = Settings.from_env(**overrides)
    logging.basicConfig(level=args.log_level.upper())
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        ws="websockets-sansio",  # what "auto" picks today; named so it stays the fast one
        ws_max_size=settings.hard_frame_bytes,
        lifespan="on",
        log_level=args.log_level,
    )


if __name__ == "__main__":
    main()
