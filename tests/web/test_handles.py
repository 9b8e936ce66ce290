"""An account chooses its public handle once (docs/web.md, "Identities and accounts"): unique among
the handles in use and those given up, reserved words and malformed handles refused with nothing
changed, a guest refused; the old ``/p/<handle>`` address and ``/api/players/<handle>`` redirect to
the new one, and the old handle is never given to someone else."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from conftest import ServerProcess


def _account(server: ServerProcess, username: str) -> tuple[str, str]:
    """(session, handle) of a new account (registering gives a new session id, in the cookie)."""
    guest = server.guest()
    register = urllib.request.Request(
        server.url + "/api/account/register",
        data=json.dumps({"username": username, "password": "long enough words"}).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {guest}"},
    )
    with urllib.request.urlopen(register, timeout=30) as r:
        session = r.headers["Set-Cookie"].split(";")[0].split("=", 1)[1]
        return session, str(json.loads(r.read())["identity"])


def _status_and_location(server: ServerProcess, path: str) -> tuple[int, str | None]:
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(server.url + path, timeout=30) as r:
            return r.status, r.headers.get("Location")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Location")


def test_an_account_chooses_its_handle_once_and_the_old_address_redirects(server: ServerProcess) -> None:
    session, old = _account(server, "handle_chooser")
    assert old.startswith("guest-")
    for bad in ("ad", "admin", "Root", "guest-123", "no spaces", "ü-umlaut", 7):
        status, answer = server.post("/api/me/handle", {"handle": bad}, session=session)
        assert status == 400 and answer["code"] == "bad_handle", (bad, answer)
    other_session, _other = _account(server, "someone_else")
    status, _me = server.post("/api/me/handle", {"handle": "kitsune"}, session=other_session)
    assert status == 200
    status, answer = server.post("/api/me/handle", {"handle": "KITSUNE"}, session=session)
    assert status == 409 and answer["code"] == "handle_taken"  # in use by someone
    status, me = server.get("/api/me", session=session)
    assert me["identity"] == old  # every refusal changed nothing

    status, me = server.post("/api/me/handle", {"handle": "Tanuki"}, session=session)
    assert status == 200 and me["identity"] == "tanuki"
    status, answer = server.post("/api/me/handle", {"handle": "tanuki2"}, session=session)
    assert status == 400 and answer["code"] == "handle_chosen"  # once

    assert _status_and_location(server, f"/p/{old}") == (301, "/p/tanuki")
    assert _status_and_location(server, f"/api/players/{old}") == (301, "/api/players/tanuki")
    status, player = server.get(f"/api/players/{old}")  # followed: the player under its new handle
    assert status == 200 and player["handle"] == "tanuki"

    # A given-up handle is nobody else's (a guest-… one is reserved anyway).
    status, answer = server.post("/api/me/handle", {"handle": old}, session=other_session)
    assert status == 400


def test_a_guest_does_not_choose_a_handle(server: ServerProcess) -> None:
    guest = server.guest()
    status, answer = server.post("/api/me/handle", {"handle": "some_guest"}, session=guest)
    assert status == 403 and answer["code"] == "not_an_account"
