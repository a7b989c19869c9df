"""What can be checked of deploy/kubernetes/ without a cluster: every manifest parses, the
kustomizations list them, and what the server needs is there and agrees with the server's
own code and settings (probes on its health routes and port, a grace period that covers its
drain, the Redis URL from a Secret, settings that exist, websocket timeouts longer than what
a game may leave silent, the room hash on the parameter the client sends, one set of labels,
an unprivileged read-only container that can still write what the server writes).

Not checked here (no cluster, no API server to validate against): that a cluster accepts
them, that ingress-nginx hashes as its annotations say, a real rolling update
(docs/deploy.md, "Kubernetes")."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from protocol.constants import WS_PATH
from server.config import Settings
from server.node import health
from server.node.shutdown import STORAGE_CLOSE_S
from tests.deploy.loopback import REPO

KUBERNETES = REPO / "deploy" / "kubernetes"
BASE = KUBERNETES / "base"
AUTOSCALING = KUBERNETES / "autoscaling"
SECRET_EXAMPLE = KUBERNETES / "redis-secret.example.yaml"
NAME_LABEL = "app.kubernetes.io/name"
PART_OF_LABEL = "app.kubernetes.io/part-of"
UVICORN_LAST_CLOSE_S = 1  # GracefulServer leaves uvicorn at least 1 s after the drain


def documents(path: Path) -> list[dict[str, Any]]:
    docs = [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]
    assert docs and all(isinstance(doc, dict) for doc in docs), path
    return docs


def manifests(folder: Path = BASE) -> list[dict[str, Any]]:
    """Every object the kustomization in ``folder`` lists (resources of other folders too)."""
    found: list[dict[str, Any]] = []
    for entry in documents(folder / "kustomization.yaml")[0]["resources"]:
        target = (folder / entry).resolve()
        found += manifests(target) if target.is_dir() else documents(target)
    return found


def one(kind: str, name: str | None = None, folder: Path = BASE) -> dict[str, Any]:
    matches = [doc for doc in manifests(folder)
               if doc["kind"] == kind and name in (None, doc["metadata"]["name"])]
    assert len(matches) == 1, (kind, name, len(matches))
    return matches[0]


def deployment() -> dict[str, Any]:
    return one("Deployment", "referee")


def pod_spec() -> dict[str, Any]:
    spec: dict[str, Any] = deployment()["spec"]["template"]["spec"]
    return spec


def container() -> dict[str, Any]:
    containers = pod_spec()["containers"]
    assert len(containers) == 1
    only: dict[str, Any] = containers[0]
    return only


def config() -> dict[str, str]:
    data: dict[str, str] = one("ConfigMap", "referee-config")["data"]
    return data


def settings() -> Settings:
    """The nodes' effective settings: the ConfigMap over the defaults."""
    return Settings.from_env(config())


def container_port(name: str) -> int:
    ports = {port["name"]: port["containerPort"] for port in container()["ports"]}
    return int(ports[name])


def selector() -> dict[str, str]:
    labels: dict[str, str] = deployment()["spec"]["selector"]["matchLabels"]
    return labels


def dockerfile_uid() -> int:
    text = (REPO / "deploy" / "Dockerfile").read_text()
    found = re.search(r"useradd [^\n]*--uid (\d+)", text)
    assert found is not None, "the image's user has a fixed uid"
    return int(found.group(1))


def test_every_manifest_parses_and_each_is_applied_by_a_kustomization() -> None:
    listed = {(BASE / entry).resolve()
              for entry in documents(BASE / "kustomization.yaml")[0]["resources"]}
    files = {path.resolve() for path in BASE.glob("*.yaml") if path.name != "kustomization.yaml"}
    assert listed == files, "every manifest of base/ is applied, and only those"
    autoscaling = documents(AUTOSCALING / "kustomization.yaml")[0]["resources"]
    assert (AUTOSCALING / autoscaling[0]).resolve() == BASE
    assert {(AUTOSCALING / entry).resolve() for entry in autoscaling[1:]} == {
        path.resolve() for path in AUTOSCALING.glob("*.yaml") if path.name != "kustomization.yaml"}
    for doc in manifests() + manifests(AUTOSCALING) + documents(SECRET_EXAMPLE):
        assert {"apiVersion", "kind", "metadata"} <= set(doc), doc
        assert doc["metadata"]["name"]
    # The Secret holds the operator's password: an example, never applied by the kustomization.
    assert all(doc["kind"] != "Secret" for doc in manifests(AUTOSCALING))


def test_one_set_of_labels_selects_the_nodes_everywhere() -> None:
    labels = deployment()["spec"]["template"]["metadata"]["labels"]
    assert selector().items() <= labels.items()
    assert selector()[NAME_LABEL] == "infinity-referee"
    services = [doc for doc in manifests() if doc["kind"] == "Service"]
    assert {service["metadata"]["name"] for service in services} == {"referee", "referee-ws"}
    for service in services:
        assert service["spec"]["selector"] == selector()
    assert one("PodDisruptionBudget")["spec"]["selector"]["matchLabels"] == selector()
    spread = pod_spec()["topologySpreadConstraints"][0]["labelSelector"]["matchLabels"]
    assert spread == selector()
    for doc in manifests() + manifests(AUTOSCALING) + documents(SECRET_EXAMPLE):
        assert doc["metadata"]["labels"][PART_OF_LABEL] == "infinity-referee", doc["kind"]
        if doc["kind"] != "Namespace":
            assert doc["metadata"]["labels"][NAME_LABEL] == "infinity-referee", doc["kind"]


def test_the_probes_ask_the_server_s_health_routes_on_the_container_s_port() -> None:
    routes = {route.path for route in health.routes}
    probes = {kind: container()[kind]["httpGet"]
              for kind in ("startupProbe", "livenessProbe", "readinessProbe")}
    # Restart only a node that no longer answers; no players for one that cannot serve.
    assert probes["startupProbe"]["path"] == probes["livenessProbe"]["path"] == "/livez"
    assert probes["readinessProbe"]["path"] == "/readyz"
    assert {probe["path"] for probe in probes.values()} <= routes
    for probe in probes.values():
        assert probe["port"] == "http"
    assert container_port("http") == settings().port == 8000
    assert settings().host == "0.0.0.0"
    # Start-up waits up to 30 s for Redis and up to a lease for the node's id.
    startup = container()["startupProbe"]
    assert startup["periodSeconds"] * startup["failureThreshold"] >= 30 + settings().lease_s


def test_the_grace_period_covers_the_drain_after_the_pre_stop_pause() -> None:
    pre_stop = container()["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[0] == "sleep"
    pause = float(pre_stop[1])
    drain = settings().shutdown_timeout_s
    # The drain, uvicorn's last second, then the probe's and the store's Redis clients closed
    # (server/app.py's lifespan: STORAGE_CLOSE_S at most each).
    needed = pause + drain + UVICORN_LAST_CLOSE_S + 2 * STORAGE_CLOSE_S
    assert pod_spec()["terminationGracePeriodSeconds"] >= needed
    assert config()["REFEREE_SHUTDOWN_TIMEOUT_S"] == "10", "set explicitly, next to the grace"


def test_an_upgrade_or_a_disruption_stops_one_pod_at_a_time_after_its_successor_is_ready() -> None:
    spec = deployment()["spec"]
    rolling = spec["strategy"]["rollingUpdate"]
    assert spec["strategy"]["type"] == "RollingUpdate"
    assert rolling["maxUnavailable"] == 0 and rolling["maxSurge"] >= 1
    assert one("PodDisruptionBudget")["spec"] == {"maxUnavailable": 1,
                                                   "selector": {"matchLabels": selector()}}
    assert spec["replicas"] >= 2, "one pod drains while the others take its rooms"


def test_the_autoscaled_variant_leaves_the_replicas_to_the_autoscaler() -> None:
    hpa = one("HorizontalPodAutoscaler", "referee", AUTOSCALING)
    assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment",
                                             "name": "referee"}
    assert 2 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]
    assert hpa["metadata"]["namespace"] == one("Namespace")["metadata"]["name"]
    [patch] = documents(AUTOSCALING / "kustomization.yaml")[0]["patches"]
    assert patch["target"]["kind"] == "Deployment" and patch["target"]["name"] == "referee"
    assert yaml.safe_load(patch["patch"]) == [{"op": "remove", "path": "/spec/replicas"}]
    # Scaling down drains pods: slower than scaling up, one at a time.
    behavior = hpa["spec"]["behavior"]
    assert behavior["scaleDown"]["stabilizationWindowSeconds"] > behavior["scaleUp"][
        "stabilizationWindowSeconds"]
    assert behavior["scaleDown"]["policies"] == [{"type": "Pods", "value": 1,
                                                  "periodSeconds": 600}]


def test_services_and_ingresses_reach_the_container_s_game_port_only() -> None:
    services = {doc["metadata"]["name"]: doc for doc in manifests() if doc["kind"] == "Service"}
    for service in services.values():
        [port] = service["spec"]["ports"]
        assert port["targetPort"] == "http", "the game's port, never metrics"
    ingresses = [doc for doc in manifests() if doc["kind"] == "Ingress"]
    backends = []
    for ingress in ingresses:
        for rule in ingress["spec"]["rules"]:
            for path in rule["http"]["paths"]:
                backend = path["backend"]["service"]
                [port] = services[backend["name"]]["spec"]["ports"]
                assert backend["port"] == {"name": port["name"]}
                backends.append((path["path"], backend["name"]))
    assert sorted(backends) == [("/", "referee"), (WS_PATH, "referee-ws")]
    assert container_port("metrics") == int(settings().metrics_listen.rpartition(":")[2])
    assert not settings().metrics_token, "no /metrics on the game's port"


def ingress(name: str) -> dict[str, Any]:
    return one("Ingress", name)


def annotation(name: str, key: str) -> str:
    value: str = ingress(name)["metadata"]["annotations"][f"nginx.ingress.kubernetes.io/{key}"]
    return value


def test_the_websocket_ingress_hashes_on_the_room_the_client_names_in_its_url() -> None:
    source = (REPO / "client-js" / "src" / "connection.js").read_text()
    param = re.search(r"\$\{separator\}([a-z_]+)=\$\{encodeURIComponent\(room\)\}", source)
    assert param is not None, "roomSocketUrl names the room in the socket's URL"
    assert "create(roomSocketUrl(this.options.url, this.options.room))" in source
    assert annotation("referee-ws", "upstream-hash-by") == f"$arg_{param.group(1)}"
    # The pod the hash picks claims the room: the one that served its creation does not.
    assert settings().claim_on_create is False
    [path] = ingress("referee-ws")["spec"]["rules"][0]["http"]["paths"]
    assert (path["path"], path["pathType"]) == (WS_PATH, "Exact")
    # ingress-nginx keeps balancing per Service port: the lobby's Service is another one, so
    # its requests (no room) are spread instead of all hashed to one pod.
    assert "nginx.ingress.kubernetes.io/upstream-hash-by" not in ingress("referee")["metadata"][
        "annotations"]
    assert {rule["host"] for name in ("referee", "referee-ws")
            for rule in ingress(name)["spec"]["rules"]} == {"referee.example.com"}


def test_websocket_timeouts_outlast_every_silence_a_game_may_leave() -> None:
    effective = settings()
    nginx = (REPO / "deploy" / "nginx.conf").read_text()
    assert "proxy_read_timeout 1h;" in nginx
    for key in ("proxy-read-timeout", "proxy-send-timeout"):
        timeout_s = int(annotation("referee-ws", key))
        assert timeout_s == 3600, "as the shipped nginx"
        # The nodes ping silent sockets; without pings an ARO window could be all silence.
        assert effective.ws_ping_interval_s > 0 and effective.ws_viewer_ping_interval_s > 0
        for interval in (effective.ws_ping_interval_s, effective.ws_viewer_ping_interval_s):
            assert timeout_s > interval + effective.ws_ping_timeout_s
        assert timeout_s >= effective.max_aro_window_s
    assert annotation("referee-ws", "proxy-buffering") == "off"


def test_redis_url_comes_from_the_secret_and_names_a_redis_cluster() -> None:
    env = {item["name"]: item for item in container()["env"]}
    secret_ref = env["REDIS_URL"]["valueFrom"]["secretKeyRef"]
    [example] = documents(SECRET_EXAMPLE)
    assert example["kind"] == "Secret"
    assert secret_ref == {"name": example["metadata"]["name"], "key": "REDIS_URL"}
    assert set(example["stringData"]) == {"REDIS_URL"}
    assert example["metadata"]["namespace"] == one("Namespace")["metadata"]["name"]
    assert "REDIS_URL" not in config()
    assert config()["REFEREE_STORAGE"] == "redis", "never an embedded Redis in a pod"
    effective = settings()
    assert effective.redis_cluster and effective.redis_wait_replicas >= 1
    assert effective.accept_redis_durability == "always"
    assert container()["envFrom"] == [{"configMapRef": {"name": "referee-config"}}]
    # Each pod is a node of its own name (kept across a restart of its container).
    assert env["REFEREE_NODE_ID"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"


def test_the_config_map_names_only_settings_the_server_reads() -> None:
    known = {f"REFEREE_{field.name.upper()}" for field in dataclasses.fields(Settings)}
    read_elsewhere = {"REFEREE_STORAGE"}  # server/node/storage.py
    assert set(config()) <= known | read_elsewhere, set(config()) - known - read_elsewhere
    assert all(isinstance(value, str) for value in config().values()), "quoted: strings only"
    settings()  # every value parses


def test_the_container_is_unprivileged_and_writes_only_to_its_volumes() -> None:
    pod = pod_spec()
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] == dockerfile_uid() != 0
    assert pod["enableServiceLinks"] is False, "a Service named referee would set REFEREE_PORT"
    assert pod["automountServiceAccountToken"] is False
    security = container()["securityContext"]
    assert security["readOnlyRootFilesystem"] is True
    assert security["allowPrivilegeEscalation"] is False
    assert security["capabilities"]["drop"] == ["ALL"]
    # What the server writes (server/cluster/identity.py: the node's id lock files) is on a
    # volume; with REFEREE_STORAGE=redis no embedded Redis data folder is made.
    volumes = {volume["name"]: volume for volume in pod["volumes"]}
    mounts = {mount["mountPath"]: mount["name"] for mount in container()["volumeMounts"]}
    assert "emptyDir" in volumes[mounts[settings().node_state_dir]]
    assert "emptyDir" in volumes[mounts["/tmp"]]


def test_the_image_is_pinned_and_the_kustomization_names_it() -> None:
    image = container()["image"]
    name, _, digest = image.partition("@")
    repository, _, tag = name.rpartition(":") if ":" in name.rsplit("/", 1)[-1] else (name, "", "")
    assert repository.rsplit("/", 1)[-1] == "infinity-referee"  # built from deploy/Dockerfile
    assert tag or digest, "an image without a tag is :latest"
    assert tag != "latest" or digest
    if digest:
        assert re.fullmatch(r"sha256:[0-9a-f]{64}", digest)
    [pinned] = documents(BASE / "kustomization.yaml")[0]["images"]
    assert pinned["name"] == repository
    assert pinned.get("newTag", "") != "latest" or pinned.get("digest")
    assert container()["imagePullPolicy"] == "IfNotPresent"


def test_resources_request_a_core_and_the_memory_of_a_full_node() -> None:
    resources = container()["resources"]
    assert resources["requests"]["cpu"] == "1", "one node is one event loop"
    assert "cpu" not in resources.get("limits", {}), "CFS throttling would stall every room"

    def mebibytes(quantity: str) -> int:
        number, unit = re.fullmatch(r"(\d+)(Mi|Gi)", quantity).groups()  # type: ignore[union-attr]
        return int(number) * (1024 if unit == "Gi" else 1)

    # docs/performance.md: 23 KB per socket and 88 KB per room; 3,000 rooms x (2 + 4).
    full_node_mib = (3000 * 6 * 23 + 3000 * 88) // 1024 + 64
    assert mebibytes(resources["requests"]["memory"]) >= full_node_mib
    assert mebibytes(resources["limits"]["memory"]) >= mebibytes(resources["requests"]["memory"])


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl (its kustomize) not installed")
@pytest.mark.parametrize("folder", [BASE, AUTOSCALING], ids=["base", "autoscaling"])
def test_kustomize_renders_each_variant(folder: Path) -> None:
    rendered = subprocess.run(["kubectl", "kustomize", str(folder)], capture_output=True,
                              text=True, timeout=60)
    assert rendered.returncode == 0, rendered.stderr
    objects = [doc for doc in yaml.safe_load_all(rendered.stdout) if doc]
    kinds = sorted(doc["kind"] for doc in objects)
    expected = ["ConfigMap", "Deployment", "Ingress", "Ingress", "Namespace",
                "PodDisruptionBudget", "Service", "Service"]
    if folder == AUTOSCALING:
        expected = sorted([*expected, "HorizontalPodAutoscaler"])
    assert kinds == expected
    [deployed] = [doc for doc in objects if doc["kind"] == "Deployment"]
    assert ("replicas" in deployed["spec"]) == (folder == BASE)
    assert {doc["metadata"].get("namespace") for doc in objects
            if doc["kind"] != "Namespace"} == {"infinity-referee"}
