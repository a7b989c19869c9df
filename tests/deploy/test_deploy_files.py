"""What can be checked of deploy/ without a container engine: compose.yaml parses and
describes Redis with its append-only file, two nodes with their own ids and nginx; the
nginx template's placeholders are exactly the variables compose and the loopback script
fill in; compose's own envsubst command renders a config that ``nginx -t`` accepts, and the
loopback script renders the very same text; the Dockerfile has what docs/deploy.md says."""

from __future__ import annotations

import json
import os
import re
import resource
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.deploy.loopback import REPO, load_script, run_script

DEPLOY = REPO / "deploy"
PLACEHOLDER = re.compile(r"\$\{([A-Z0-9_]+)\}")


def compose() -> dict[str, Any]:
    data = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    assert isinstance(data, dict)
    return data


def template_variables() -> set[str]:
    body = "\n".join(line for line in (DEPLOY / "nginx.conf").read_text().splitlines()
                     if not line.lstrip().startswith("#"))
    return set(PLACEHOLDER.findall(body))


def compose_nginx_shell() -> str:
    """The nginx service's shell command as the container runs it ($$ is compose's $)."""
    command = compose()["services"]["nginx"]["command"]
    assert command[:2] == ["/bin/sh", "-c"]
    return str(command[2]).replace("$$", "$")


def nginx_test(config: Path, prefix: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([shutil.which("nginx") or "/usr/sbin/nginx", "-t", "-p", str(prefix),
                           "-c", str(config), "-e", str(prefix / "error.log")],
                          capture_output=True, text=True, timeout=60)


def test_the_template_the_compose_file_and_the_script_name_the_same_variables() -> None:
    names = template_variables()
    assert names == set(load_script().TEMPLATE_VARIABLES)
    assert names == set(compose()["services"]["nginx"]["environment"])
    listed = re.search(r"envsubst '([^']*)'", compose_nginx_shell())
    assert listed is not None
    assert set(PLACEHOLDER.findall(listed.group(1))) == names


def test_compose_runs_redis_with_its_append_only_file_and_two_distinct_nodes() -> None:
    services = compose()["services"]
    assert set(services) == {"redis", "node1", "node2", "nginx", "prometheus"}
    redis_command = services["redis"]["command"]
    assert redis_command[redis_command.index("--appendonly") + 1] == "yes"
    assert redis_command[redis_command.index("--appendfsync") + 1] in ("always", "everysec")
    nodes = [services["node1"], services["node2"]]
    assert {n["environment"]["REFEREE_NODE_ID"] for n in nodes} == {"node-1", "node-2"}
    assert {n["environment"]["REDIS_URL"] for n in nodes} == {"redis://redis:6379/0"}
    for node in nodes:
        assert (REPO / node["build"]["context"].replace("..", ".") /
                node["build"]["dockerfile"]).resolve() == DEPLOY / "Dockerfile"
        assert node["stop_signal"] == "SIGTERM"
        grace = int(node["stop_grace_period"].removesuffix("s"))
        assert grace > float(node["environment"]["REFEREE_SHUTDOWN_TIMEOUT_S"])
    upstreams = services["nginx"]["environment"]
    assert {upstreams["REFEREE_NODE_1"], upstreams["REFEREE_NODE_2"]} == {"node1:8000",
                                                                          "node2:8000"}
    assert services["nginx"]["volumes"] == ["./nginx.conf:/etc/nginx/referee.conf.template:ro"]


@pytest.mark.skipif(shutil.which("envsubst") is None, reason="envsubst (gettext-base) missing")
def test_compose_s_nginx_command_renders_a_config_nginx_accepts_and_loopback_renders_it_too(
        tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    values = load_script().loopback_nginx_values(run_dir, 18080, [18001, 18002])
    # The container's own command, pointed at local paths and not exec'ing nginx; the
    # loopback values stand in for compose's (no user "nginx", no host "node1" here).
    shell = (compose_nginx_shell()
             .replace("/etc/nginx/referee.conf.template", shlex.quote(str(DEPLOY / "nginx.conf")))
             .replace("/etc/nginx/nginx.conf", shlex.quote(str(tmp_path / "compose.conf")))
             .replace("exec nginx -g 'daemon off;'", "true"))
    rendered = subprocess.run(["/bin/sh", "-c", shell], env={**os.environ, **values},
                              capture_output=True, text=True, timeout=60)
    assert rendered.returncode == 0, rendered.stderr
    compose_text = (tmp_path / "compose.conf").read_text()
    assert "${" not in "\n".join(line for line in compose_text.splitlines()
                                 if not line.lstrip().startswith("#"))
    assert "$http_upgrade" in compose_text and "$connection_upgrade" in compose_text

    script = run_script("nginx-config", "--run-dir", str(run_dir), "--port", "18080",
                        "--node-ports", "18001,18002")
    assert script.returncode == 0, script.stderr
    assert script.stdout == compose_text, "loopback and compose render the same template alike"

    checked = nginx_test(tmp_path / "compose.conf", tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert "test is successful" in checked.stderr


def test_each_nginx_worker_carries_a_nodes_sockets_within_its_open_files(
        tmp_path: Path) -> None:
    """Each websocket through nginx takes two connections (the client's, the node's): a
    worker must allow twice a node's ~16,000 sockets (docs/capacity.md), and open more
    files than that. The loopback's stays within what its user may open."""
    env = compose()["services"]["nginx"]["environment"]
    connections, files = int(env["NGINX_WORKER_CONNECTIONS"]), int(env["NGINX_WORKER_FILES"])
    assert connections >= 2 * 16_000 and files > connections
    values = load_script().loopback_nginx_values(tmp_path, 18080, [18001, 18002])
    assert int(values["NGINX_WORKER_CONNECTIONS"]) < int(values["NGINX_WORKER_FILES"])
    assert int(values["NGINX_WORKER_FILES"]) <= resource.getrlimit(resource.RLIMIT_NOFILE)[1]


def test_the_websocket_location_upgrades_and_allows_long_lived_connections() -> None:
    text = (DEPLOY / "nginx.conf").read_text()
    ws = text[text.index("location = /ws"):]
    ws = ws[:ws.index("}")]
    assert "proxy_set_header Upgrade $http_upgrade;" in ws
    assert "proxy_set_header Connection $connection_upgrade;" in ws
    assert "proxy_read_timeout 1h;" in ws
    assert "ip_hash" not in text and "sticky" not in text.replace("sticky sessions", "")


def test_a_rooms_requests_go_to_one_node_by_its_id_and_fail_over_to_the_next() -> None:
    """The websocket's ?room= (or a room's own /api/rooms/<id> path) is the key of a
    consistent hash over the nodes; a node that fails is skipped (proxy_next_upstream). The
    nodes leave a new room to the node its sockets reach (REFEREE_CLAIM_ON_CREATE=0)."""
    text = (DEPLOY / "nginx.conf").read_text()
    upstream = text[text.index("upstream referee {"):]
    assert upstream[:upstream.index("}")].split("{")[1].split(";")[0].split() == [
        "hash", "$room", "consistent"]
    assert "map $arg_room $room {" in text and "map $uri $room_of_path {" in text
    assert "proxy_next_upstream error timeout http_502 http_503 http_504;" in text
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    for node in ("node1", "node2"):
        assert compose["services"][node]["environment"]["REFEREE_CLAIM_ON_CREATE"] == "0"


def test_nginx_denies_the_nodes_metrics_to_the_public() -> None:
    text = (DEPLOY / "nginx.conf").read_text()
    metrics = text[text.index("location ^~ /metrics"):]
    assert metrics[:metrics.index("}")].split("{")[1].split() == ["deny", "all;"]
    assert text.index("location ^~ /metrics") < text.index("location / {")


def test_nginx_limits_creations_per_client_address_before_the_nodes() -> None:
    """Room and tournament creation and registration (POSTs only) pass nginx's limit_req
    first (docs/deploy.md, "What an operator adds in front")."""
    text = (DEPLOY / "nginx.conf").read_text()
    assert "limit_req_zone $creation_client zone=creations:10m rate=1r/s;" in text
    assert "limit_req_status 429;" in text
    mapping = text[text.index("map $request_method $creation_client"):]
    assert mapping[:mapping.index("}")].split("{")[1].split() == [
        "POST", "$binary_remote_addr;", "default", '"";']
    start = text.index("location ~ ^/api/(rooms|tournaments|tournaments/[^/]+/players)$")
    block = text[start:text.index("}", start)]
    assert "limit_req zone=creations burst=10 nodelay;" in block
    assert "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;" in block
    assert start < text.index("location / {")


def test_prometheus_scrapes_every_node_of_the_compose_file_directly() -> None:
    services = compose()["services"]
    prometheus = services["prometheus"]
    assert "./prometheus.yml:/etc/prometheus/prometheus.yml:ro" in prometheus["volumes"]
    assert "--config.file=/etc/prometheus/prometheus.yml" in prometheus["command"]
    assert all(port.startswith("127.0.0.1:") for port in prometheus["ports"])
    config = yaml.safe_load((DEPLOY / "prometheus.yml").read_text())
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    referee = jobs["referee"]
    assert referee.get("metrics_path", "/metrics") == "/metrics"
    targets = {target for static in referee["static_configs"] for target in static["targets"]}
    nodes = {f"{name}:{service['environment']['REFEREE_METRICS_LISTEN'].rpartition(':')[2]}"
             for name, service in services.items()
             if service.get("image") == "infinity-referee:latest"}
    assert targets == nodes == {"node1:9100", "node2:9100"}
    # The metrics port is on the compose network only: exposed, never published.
    for name in ("node1", "node2"):
        assert "9100" in services[name]["expose"] and "ports" not in services[name]
    assert set(prometheus["depends_on"]) == {"node1", "node2"}


def exposed_metric_names() -> set[str]:
    """Every sample name /metrics may hold: the metrics server/metrics.py defines (and the
    default collectors its registry carries), with the suffixes of their types."""
    from prometheus_client import REGISTRY

    import server.metrics  # noqa: F401  (defines them in the registry)

    suffixes = {"counter": ("_total",), "gauge": ("",), "info": ("_info",),
                "histogram": ("_bucket", "_sum", "_count")}
    return {family.name + suffix for family in REGISTRY.collect()
            for suffix in suffixes.get(family.type, ("",))}


def test_the_grafana_dashboard_parses_and_names_only_metrics_the_nodes_expose() -> None:
    dashboard = json.loads((DEPLOY / "grafana" / "referee-dashboard.json").read_text())
    known = exposed_metric_names()
    panels = dashboard["panels"]
    assert len({panel["id"] for panel in panels}) == len(panels) >= 10
    named = set()
    for panel in panels:
        assert panel["targets"], panel["title"]
        for target in panel["targets"]:
            names = set(re.findall(r"\b(?:referee|process|python)_[a-z0-9_]+", target["expr"]))
            assert names, target["expr"]
            assert names <= known, (panel["title"], names - known)
            named |= names
    for metric in ("referee_rooms", "referee_sockets", "referee_commands_total",
                   "referee_command_latency_seconds_bucket",
                   "referee_aro_close_lateness_seconds_bucket",
                   "referee_redis_append_seconds_bucket", "referee_redis_append_failures_total",
                   "referee_relays", "referee_lease_claims_total", "referee_lease_losses_total",
                   "referee_lease_takeovers_total", "referee_loop_lag_seconds_bucket",
                   "referee_gc_pause_seconds_bucket"):
        assert metric in named, f"no panel shows {metric}"


def test_the_dockerfile_runs_the_server_unprivileged_with_health_and_stop_signal() -> None:
    lines = [line.strip() for line in (DEPLOY / "Dockerfile").read_text().splitlines()]
    froms = [line.split()[1] for line in lines if line.startswith("FROM ")]
    assert froms[-1] == "python:3.11-slim"
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users and users[-1] not in ("root", "0")
    assert "STOPSIGNAL SIGTERM" in lines
    health = " ".join(lines[lines.index(next(line for line in lines
                                               if line.startswith("HEALTHCHECK"))):][:2])
    assert "/livez" in health, "liveness: a node whose Redis is down is not restarted"
    # The node keeps its id and id locks in a directory its user may write.
    assert any("REFEREE_NODE_STATE_DIR=/srv/referee/var" in line for line in lines)
    assert "RUN mkdir -p /srv/referee/var && chown referee:referee /srv/referee/var" in lines
    assert 'CMD ["python", "-m", "server"]' in lines
    assert any("REFEREE_HOST=0.0.0.0" in line for line in lines)
    # Everything it copies from the build context exists.
    for line in lines:
        if line.startswith("COPY ") and "--from=" not in line:
            for source in line.split()[1:-1]:
                assert (REPO / source).exists(), source


def test_the_loopback_script_runs_with_bash_and_on_its_own_alike(tmp_path: Path) -> None:
    """``bash deploy/bin/loopback ...`` (what a developer may type) and
    ``deploy/bin/loopback ...`` run the same program with the same arguments."""
    args = ("nginx-config", "--run-dir", str(tmp_path), "--port", "18080",
            "--node-ports", "18001,18002")
    direct, with_bash = run_script(*args), run_script(*args, via_bash=True)
    assert direct.returncode == with_bash.returncode == 0, direct.stderr + with_bash.stderr
    assert direct.stdout == with_bash.stdout
    assert "server 127.0.0.1:18001" in direct.stdout
    usage = run_script("no-such-command", via_bash=True)
    assert usage.returncode == 2 and "usage: deploy/bin/loopback" in usage.stderr
