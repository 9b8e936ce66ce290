"""docs/deploy.md's nginx configuration, run for real: nginx in front of two ``clash serve`` processes
on one PostgreSQL, an HTTP and WebSocket round trip through it, and the client address the processes
log (nginx's view, never what the client wrote in X-Forwarded-For).  Skipped without nginx
(``apt-get install nginx``) or without the PostgreSQL of ``CLASH_TEST_PG_URL``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import Client, ServerProcess, pg_url

DEPLOY_DOC = Path(__file__).resolve().parents[2] / "docs" / "deploy.md"
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)


def documented_nginx_config() -> str:
    """The ```nginx block of docs/deploy.md's "nginx" section, as written there."""
    text = DEPLOY_DOC.read_text(encoding="utf-8")
    section = text.split("\n## nginx\n", 1)[1]
    match = re.search(r"```nginx\n(.*?)```", section, re.S)
    assert match is not None, "docs/deploy.md has no nginx block"
    return match.group(1)


def runnable_config(doc: str, ports: list[int], listen: int, tmp: Path) -> str:
    """The documented configuration with the test's ports, plain HTTP instead of TLS, and no
    redirect server; inside a main configuration that keeps every file in ``tmp``."""
    assert "127.0.0.1:8001" in doc and "127.0.0.1:8002" in doc and "listen 443 ssl http2;" in doc
    conf = doc.replace("127.0.0.1:8001", f"127.0.0.1:{ports[0]}").replace(
        "127.0.0.1:8002", f"127.0.0.1:{ports[1]}"
    )
    conf = conf.replace("listen 443 ssl http2;", f"listen 127.0.0.1:{listen};")
    conf = re.sub(r"^\s*ssl_certificate(_key)?\s.*?;\n", "", conf, flags=re.M)
    conf = re.sub(r"\nserver \{\n    listen 80;.*?\n\}\n", "\n", conf, flags=re.S)
    assert "ssl_" not in conf and "listen 80;" not in conf
    temp_paths = "\n".join(
        f"    {kind}_temp_path {tmp / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return (
        f"daemon off;\nmaster_process off;\npid {tmp / 'nginx.pid'};\nerror_log {tmp / 'error.log'};\n"
        f"events {{ worker_connections 256; }}\n"
        f"http {{\n    access_log {tmp / 'access.log'};\n{temp_paths}\n{conf}\n}}\n"
    )


@pytest.fixture
def nginx_front(tmp_path: Path) -> Iterator[tuple[ServerProcess, list[ServerProcess]]]:
    if NGINX is None:
        pytest.skip("nginx is not installed (apt-get install nginx)")
    database = pg_url()
    if database is None:
        pytest.skip("CLASH_TEST_PG_URL is not set (two processes need PostgreSQL)")
    backends = [
        ServerProcess(
            tmp_path / f"app{i}",
            "--agent-workers",
            "0",
            "--forwarded-allow-ips",
            "127.0.0.1",
            database=database,
        )
        for i in (1, 2)
    ]
    front = ServerProcess(tmp_path / "front")  # not started: its helpers talk to nginx's port
    conf = tmp_path / "nginx.conf"
    nginx: subprocess.Popen[bytes] | None = None
    try:
        for backend in backends:
            backend.start()
        ports = [b.port for b in backends]
        conf.write_text(runnable_config(documented_nginx_config(), ports, front.port, tmp_path))
        nginx = subprocess.Popen(
            [NGINX, "-p", str(tmp_path), "-c", str(conf), "-e", str(tmp_path / "error.log")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        _wait_until_answering(nginx, front.url + "/healthz", tmp_path / "error.log")
        yield front, backends
    finally:
        if nginx is not None:
            nginx.terminate()
            nginx.wait(timeout=30)
        for backend in backends:
            backend.stop()


def _wait_until_answering(nginx: subprocess.Popen[bytes], url: str, error_log: Path) -> None:
    deadline = time.monotonic() + 30  # start-up guard, not a timed assertion
    while True:
        assert nginx.poll() is None, error_log.read_text()
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except (OSError, urllib.error.URLError):
            assert time.monotonic() < deadline, "nginx did not answer"
            time.sleep(0.1)


def test_two_processes_behind_the_documented_nginx(
    nginx_front: tuple[ServerProcess, list[ServerProcess]],
) -> None:
    front, backends = nginx_front
    assert front.get("/readyz") == (200, {"status": "ready"})
    game = front.new_game(kind="solo", format="draft", level=2)
    for _ in range(4):  # several calls: nginx spreads them over both processes
        assert front.get("/api/lobby", session=game["session"])[0] == 200
    # The socket's upgrade passes through nginx; the game is played on whichever process takes it.
    client = Client(front, game["id"], game["tokens"], session=game["session"])
    before = client.state["index"]
    assert client.act(client.state["legal"][0])["index"] == before + 1
    client.close()
    spoofed = urllib.request.Request(front.url + "/api/cards", headers={"X-Forwarded-For": "198.51.100.7"})
    for _ in range(2):
        with urllib.request.urlopen(spoofed, timeout=30) as r:
            assert r.status == 200
    logs = [b.log.read_text(encoding="utf-8") for b in backends]
    for log in logs:  # both processes served requests, each logging nginx's view of the client
        line = r'^127\.0\.0\.1 - - \[[^]]+\] "(GET|POST) /api/\S+ HTTP/1\.1" 200 '
        assert re.search(line, log, re.M), log[-2000:]
    assert not any("198.51.100.7" in log for log in logs)
    assert any('"GET /api/cards HTTP/1.1" 200' in log for log in logs)
    assert any('"WEBSOCKET /ws HTTP/1.1" 101 - ' in log for log in logs)


def test_the_documented_systemd_units_verify(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    text = DEPLOY_DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"```ini\n(.*?)```", text, re.S)
    assert len(blocks) == 2, "docs/deploy.md: the serve template unit and the migration unit"
    (tmp_path / "clash-serve@.service").write_text(blocks[0])
    (tmp_path / "clash-migrate.service").write_text(blocks[1])
    units = [str(tmp_path / "clash-serve@8001.service"), str(tmp_path / "clash-migrate.service")]
    checked = subprocess.run([analyze, "verify", "--man=no", *units], capture_output=True, text=True)
    assert checked.returncode == 0 and checked.stderr.strip() == "", checked.stderr


def test_the_whole_documented_nginx_config_passes_nginx_t(tmp_path: Path) -> None:
    """All of it, TLS and the redirect included (the round trip above serves plain HTTP)."""
    openssl = shutil.which("openssl")
    if NGINX is None or openssl is None:
        pytest.skip("nginx or openssl is not installed")
    cert, key = tmp_path / "fullchain.pem", tmp_path / "privkey.pem"
    args = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=cards.example.org"]
    subprocess.run(
        [openssl, *args, "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    doc = documented_nginx_config()
    conf = doc.replace("/etc/ssl/clash/fullchain.pem", str(cert)).replace(
        "/etc/ssl/clash/privkey.pem", str(key)
    )
    assert conf != doc
    main = tmp_path / "nginx.conf"
    main.write_text(
        f"pid {tmp_path / 'nginx.pid'};\nerror_log {tmp_path / 'error.log'};\nevents {{ }}\n"
        f"http {{\n    access_log off;\n{conf}\n}}\n"
    )
    checked = subprocess.run(
        [NGINX, "-t", "-p", str(tmp_path), "-c", str(main), "-e", str(tmp_path / "error.log")],
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0 and "test is successful" in checked.stderr, checked.stderr
