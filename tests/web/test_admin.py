"""``clash admin`` (docs/deploy.md, "Operator commands"): sign an identity out everywhere, disable an
account, reset a password, prune; on the database of a running server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import ServerProcess


def _admin(proc: ServerProcess, *args: str) -> str:
    env = {**os.environ, "CLASH_DATA_DIR": str(proc.data_dir)}
    done = subprocess.run(
        [sys.executable, "-m", "clashofdecks", "admin", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _login(proc: ServerProcess, username: str, password: str) -> int:
    return proc.post("/api/account/login", {"username": username, "password": password}, session="")[0]


def test_operator_signs_out_disables_and_resets(tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path, "--agent-workers", "0").start()
    try:
        guest = proc.guest()
        assert (
            proc.post(
                "/api/account/register", {"username": "ada", "password": "correct horse"}, session=guest
            )[0]
            == 200
        )
        assert _login(proc, "ada", "correct horse") == 200
        other = proc.guest()
        handle = proc.get("/api/me", session=other)[1]["identity"]
        assert "1 session(s) ended" in _admin(proc, "sign-out", handle)
        assert proc.get("/api/me", session=other)[1]["identity"] is None
        assert "disabled" in _admin(proc, "disable", "ada")
        assert _login(proc, "ada", "correct horse") == 401
        out = _admin(proc, "reset-password", "ada")
        password = out.split("new password ", 1)[1].split()[0]
        assert _login(proc, "ada", password) == 200
        assert "deleted" in _admin(proc, "prune")
    finally:
        proc.stop()
