"""Creating a tournament through the API, as the page's form does (issue 39): the form's choices,
and a refusal that names its field, its code and the values its words need, storing nothing."""

from __future__ import annotations

from test_tournament_browser import organiser

from conftest import ServerProcess


def test_the_form_reads_the_servers_choices(server: ServerProcess) -> None:
    status, choices = server.get("/api/tournaments/new")
    assert status == 200
    assert choices == {
        "kinds": ["arena", "swiss"],
        "formats": ["draft", "precon"],
        "time_controls": ["3+2", "5+3", "10+5"],
        "minutes": [10, 360],
        "rounds": [1, 15],
        "max_days": 30,
    }


def test_a_refusal_names_the_field_its_code_and_its_values(server: ServerProcess) -> None:
    session = organiser(server)
    before = server.get("/api/tournaments")[1]["tournaments"]
    cases = [
        (
            {"kind": "arena", "minutes": 5, "starts_in": 60},
            "bad_minutes",
            "minutes",
            {"low": 10, "high": 360},
        ),
        ({"kind": "swiss", "rounds": 16, "starts_in": 60}, "bad_rounds", "rounds", {"low": 1, "high": 15}),
        ({"kind": "swiss", "rounds": 3, "starts_at": 1.0}, "bad_start", "starts_at", {"days": 30}),
        ({"kind": "swiss", "rounds": 3, "starts_in": None}, "bad_start", "starts_in", {"days": 30}),
        ({"kind": "swiss", "rounds": 3, "starts_in": 60, "name": " "}, "bad_name", "name", {"max": 40}),
        ({"kind": "cup", "starts_in": 60}, "bad_kind", "kind", {}),
        (
            {"kind": "arena", "minutes": 30, "starts_in": 60, "time_control": "1d"},
            "bad_time_control",
            "time_control",
            {},
        ),
    ]
    for body, code, field, values in cases:
        status, answer = server.post("/api/tournaments", {"name": "Cup", **body}, session=session)
        assert status == 400, body
        assert (answer["code"], answer["field"], answer["values"]) == (code, field, values), body
        assert answer["error"]  # the English sentence is kept for scripts
    status, answer = server.post(
        "/api/tournaments", {"name": "Cup", "kind": "arena", "x": 1}, session=session
    )
    assert (status, answer["code"]) == (400, "bad_input")
    assert server.get("/api/tournaments")[1]["tournaments"] == before
