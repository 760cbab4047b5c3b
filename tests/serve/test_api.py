"""The JSON API: the library's values for every state, one line of JSON for every bad
request, and the safety rules (bounded requests, Host check, security headers)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from perfectplay.serve.app import CSP, MAX_BODY, MAX_QUERY


def _advise(table_path, rules_flag, situation, capsys):
    """What ``perfectplay yahtzee advise --json`` says of ``situation``."""
    from perfectplay.cli import main

    capsys.readouterr()
    assert main(["yahtzee", "advise", "--load", str(table_path), *rules_flag, "--json",
                 situation]) == 0  # fmt: skip
    return json.loads(capsys.readouterr().out)


def _random_play(client, game, rng, steps):
    """States met playing at random through the API (chance outcomes by probability)."""
    state = client.get(f"/api/games/{game}").json()["start"]
    seen = []
    for _ in range(steps):
        pos = client.post(f"/api/games/{game}/options", json={"state": state}).json()
        assert "error" not in pos, pos
        seen.append(pos)
        if pos["over"]:
            break
        if "chances" in pos:
            chances = pos["chances"]
        else:
            action = rng.choice(pos["options"])["action"]
            step = client.post(f"/api/games/{game}/apply", json={"state": state, "action": action})
            assert step.status_code == 200, step.text
            if "state" in step.json():
                state = step.json()["state"]
                continue
            chances = step.json()["chances"]
        weights = [c["probability"] for c in chances]
        assert sum(weights) == pytest.approx(1.0)
        state = rng.choices(chances, weights)[0]["state"]
    return seen


def test_lists_the_games(client):
    games = client.get("/api/games").json()["games"]
    assert [g["id"] for g in games] == ["yahtzee-mini", "pig", "tictactoe", "alea"]
    assert [g["players"] for g in games] == [1, 2, 2, 1]
    assert games[1]["start"] == "(0, 0, 0)" and games[1]["objective"] == "maximise winning chance"
    assert client.get("/api/games/pig").json() == games[1]


def test_yahtzee_values_are_the_commands(client, mini_table, tmp_path, capsys):
    path = mini_table.save(tmp_path / "mini.table")
    mini_py = Path(__file__).with_name("mini_rules.py")
    rng = random.Random(7)
    checked = 0
    for _ in range(3):
        for pos in _random_play(client, "yahtzee-mini", rng, 60):
            if "options" not in pos or pos["over"]:
                continue
            advice = _advise(path, ["--rules", f"{mini_py}:MINI"], pos["state"], capsys)
            assert [o["action"] for o in pos["options"]] == [o["action"] for o in advice["options"]]
            assert [o["value"] for o in pos["options"]] == [o["value"] for o in advice["options"]]
            best = pos["options"][0]["value"]
            assert [o["regret"] for o in pos["options"]] == pytest.approx(
                [best - o["value"] for o in pos["options"]], abs=1e-9
            )
            checked += 1
    assert checked > 20


def test_a_played_yahtzee_game_scores_what_its_card_says(client):
    rng = random.Random(3)
    seen = _random_play(client, "yahtzee-mini", rng, 200)
    last = seen[-1]
    assert last["over"] and last["options"] == []
    assert last["value"] == last["card"]["score"] >= 0
    assert len(last["card"]["filled"]) == 5


def test_the_card_shows_the_bonuses_its_boxes_do_not(client):
    # Its boxes add up to 47; the score is 112: the upper bonus (15, the upper boxes at 11
    # of 10) and an extra n-of-a-kind (50) make up the rest, and the card says so.
    situation = "dice 2 2 2; rolls left 0; filled kind=30 ones=1 twos=4 threes=6"
    after = client.post(
        "/api/games/yahtzee-mini/apply", json={"state": situation, "action": "score chance"}
    ).json()["state"]
    card = client.post("/api/games/yahtzee-mini/options", json={"state": after}).json()["card"]
    assert card["score"] == 112 and sum(card["filled"].values()) == 47
    bonuses = ("upper", "upper_bonus", "bonus_at", "extra_bonus")
    assert [card[k] for k in bonuses] == [11, 15, 10, 50]
    empty = client.post("/api/games/yahtzee-mini/options", json={"state": "filled -"}).json()
    assert [empty["card"][k] for k in bonuses] == [0, 0, 10, 0]


@pytest.mark.parametrize(
    "game, fixture", [("pig", "pig_solution"), ("tictactoe", "tictactoe_solution")]
)
def test_model_values_are_the_librarys(client, game, fixture, request):
    from perfectplay.results.table import key_value

    sol = request.getfixturevalue(fixture)
    rng = random.Random(11)
    checked = 0
    for _ in range(4):
        for pos in _random_play(client, game, rng, 40):
            state = key_value(pos["state"])
            assert pos["options"] == [
                {**o.to_json(), **({"next": repr(o.state)} if game == "tictactoe" else {})}
                for o in sol.options(state)
            ]
            checked += 1
    assert checked > 20


@pytest.mark.parametrize(
    "game, state, own",
    [
        ("tictactoe", "'X...O....'", ["1", "2", "3", "5", "6", "7", "8"]),
        ("pig", "(0, 0, 3)", ["roll", "hold"]),
        ("yahtzee-mini", "dice 1 2 2; rolls left 2",
         ["keep nothing", "keep 1", "keep 1 2", "keep 1 2 2", "keep 2", "keep 2 2"]),
        ("yahtzee-mini", "dice 1 2 2; rolls left 0",
         ["score ones", "score twos", "score threes", "score chance", "score kind"]),
        ("alea", "PXRES", "by dice"),
    ],
)  # fmt: skip
def test_options_carry_the_games_own_order(client, game, state, own):
    # The page lists options in this order with hints hidden: best first gives it away.
    pos = client.post(f"/api/games/{game}/options", json={"state": state}).json()
    assert sorted(pos["order"]) == list(range(len(pos["options"])))
    shown = [pos["options"][i]["action"] for i in pos["order"]]
    if own == "by dice":  # Alea: the keeps by the dice they keep, "(dice 1 2)" ...
        found = [re.search(r"\((?:die|dice) ([\d ]+)\)", a) for a in shown]
        kept = [tuple(map(int, m[1].split())) if m else () for m in found]
        assert kept == sorted(kept) and pos["order"] != sorted(pos["order"])
    else:
        assert shown == own


def test_a_cost_games_rolls_say_what_they_cost(race_game):
    # The page adds them up: the value at the goal is the cost still to come (0).
    assert (race_game.describe()["measure"], race_game.describe()["unit"]) == ("cost", "rolls")
    assert race_game.apply("0", "(0, 2)")["cost"] == 2.0
    assert race_game.apply("6", "(6, 2)")["cost"] == 1.0
    assert race_game.apply("6", "(6, 1)")["cost"] == 1.0
    assert race_game.position("10")["over"] and race_game.position("10")["value"] == 0


def test_pig_roll_outcomes_and_their_probabilities(client):
    got = client.post("/api/games/pig/apply", json={"state": "(0, 0, 3)", "action": "roll"}).json()
    assert [(c["state"], c["passes"]) for c in got["chances"]] == [
        ("(0, 0, 0)", True),
        *[(f"(0, 0, {3 + f})", False) for f in range(2, 7)],
    ]
    assert all(c["probability"] == pytest.approx(1 / 6) for c in got["chances"])
    hold = client.post("/api/games/pig/apply", json={"state": "(0, 0, 3)", "action": "hold"})
    assert hold.json()["chances"] == [
        {"state": "(0, 3, 0)", "probability": 1.0, "passes": True, "label": "(0, 3, 0)"}
    ]


def test_parse_writes_the_state_back(client):
    got = client.post("/api/games/yahtzee-mini/parse", json={"state": "DICE 3 1 1 | rolls 1"})
    assert got.json() == {"state": "dice 3 1 1; rolls left 1"}
    assert client.post("/api/games/pig/parse", json={"state": "(0,0, 7)"}).json() == {
        "state": "(0, 0, 7)"
    }


def test_the_query_form_of_options(client):
    got = client.get("/api/games/pig/options", params={"state": "(0, 0, 15)"})
    assert got.status_code == 200 and [o["action"] for o in got.json()["options"]] == [
        "roll",
        "hold",
    ]


BAD = [
    ("post", "/api/games/pig/options", {"state": "(0, 0"}, 400, "not a state"),
    ("post", "/api/games/pig/options", {"state": "__import__('os')"}, 400, "not a state"),
    ("post", "/api/games/pig/options", {"state": "(99, 99, 99)"}, 400, "not reached"),
    ("post", "/api/games/pig/options", {"state": 3}, 400, "must be a string"),
    ("post", "/api/games/pig/options", {}, 400, "give the state"),
    ("post", "/api/games/pig/apply", {"state": "(0, 0, 3)"}, 400, "give the action"),
    ("post", "/api/games/pig/apply", {"state": "(0, 0, 3)", "action": "fly"}, 400, "no option"),
    ("post", "/api/games/nope/options", {"state": "1"}, 404, "no game"),
    ("post", "/api/games/yahtzee-mini/options", {"situation": "dice 1 1 7; rolls 0"}, 400, "face"),
    (
        "post",
        "/api/games/yahtzee-mini/options",
        {"situation": "filled ones=5"},
        400,
        "cannot score",
    ),
    (
        "post",
        "/api/games/yahtzee-mini/apply",
        {"situation": "filled -", "action": "x"},
        400,
        "roll the dice first",
    ),
    ("get", "/api/games/pig/apply", None, 405, "Method Not Allowed"),
    ("get", "/static/../app.py", None, 404, "Not Found"),
    ("get", "/static/app.py", None, 404, "no such file"),
    ("post", "/api/games/pig/options", {"state": "x" * 3000}, 400, "longer than"),
]


@pytest.mark.parametrize("method, url, body, status, message", BAD)
def test_bad_requests_are_a_4xx_with_one_line(client, method, url, body, status, message):
    got = getattr(client, method)(url, **({"json": body} if body is not None else {}))
    assert got.status_code == status, got.text
    assert list(got.json()) == ["error"] and message in got.json()["error"]
    assert "\n" not in got.text and "Traceback" not in got.text


def test_limits_and_headers(client):
    big = client.post("/api/games/pig/options", content=b"{" + b" " * MAX_BODY + b"}",
                      headers={"content-type": "application/json"})  # fmt: skip
    assert big.status_code == 413
    chunked = client.post("/api/games/pig/options", content=iter([b" " * 4096] * 8))
    assert chunked.status_code == 413
    long = client.get("/api/games/pig/options?state=" + "1" * (MAX_QUERY + 1))
    assert long.status_code == 414
    assert client.post("/api/games/pig/options", content=b"[1]").status_code == 400
    foreign = client.get("/api/games", headers={"host": "evil.example:80"})
    assert foreign.status_code == 421
    page = client.get("/")
    assert page.headers["content-security-policy"] == CSP
    assert "'unsafe-inline'" not in CSP and "script-src 'self'" in CSP
    assert page.headers["x-content-type-options"] == "nosniff"
    assert "<script" in page.text and 'src="/static/app.js"' in page.text


def test_a_failing_model_is_a_500_with_one_line(games):
    from starlette.testclient import TestClient

    from perfectplay.serve.app import create_app
    from perfectplay.serve.games import ModelGame

    class Broken:
        start = (0, 0, 0)

        def chances(self, state, move):
            raise RuntimeError("boom\nsecond line")

    pig = next(g for g in games if g.id == "pig")
    broken = ModelGame("broken", pig.solution, "broken", Broken())
    with TestClient(create_app([broken]), raise_server_exceptions=False) as c:
        got = c.post("/api/games/broken/apply", json={"state": "(0, 0, 3)", "action": "roll"})
    assert got.status_code == 500 and got.json() == {"error": "internal error: RuntimeError"}


def test_a_table_without_its_model_answers_but_cannot_roll(pig_solution, tmp_path):
    from starlette.testclient import TestClient

    import perfectplay
    from perfectplay.serve.app import create_app
    from perfectplay.serve.games import ModelGame

    table = perfectplay.load(pig_solution.save(tmp_path / "pig.npz"))
    game = ModelGame("pig-table", table)
    assert not game.playable and game.start() == "(0, 0, 0)"
    with TestClient(create_app([game])) as c:
        pos = c.post("/api/games/pig-table/options", json={"state": "(0, 0, 15)"}).json()
        assert pos["options"] == [o.to_json() for o in pig_solution.options((0, 0, 15))]
        roll = c.post("/api/games/pig-table/apply", json={"state": "(0, 0, 15)", "action": "roll"})
        assert roll.status_code == 400 and "without its model" in roll.json()["error"]


def test_american_values_are_the_commands(american, tmp_path, capsys):
    from starlette.testclient import TestClient

    from perfectplay.serve.app import create_app
    from perfectplay.serve.games import ScorecardTable

    path = american.save(tmp_path / "american.table")
    game = ScorecardTable("yahtzee-american", american.rules, american)
    rng = random.Random(5)
    checked = 0
    with TestClient(create_app([game])) as c:
        for pos in _random_play(c, "yahtzee-american", rng, 40):
            if "options" in pos and not pos["over"]:
                advice = _advise(path, [], pos["state"], capsys)
                got = [(o["action"], o["value"]) for o in pos["options"]]
                assert got == [(o["action"], o["value"]) for o in advice["options"]]
                checked += 1
    assert checked > 15


@pytest.mark.slow
@pytest.mark.parametrize("name", ["american-forced-joker", "american-no-joker",
                                  "american-no-bonus", "yatzy"])  # fmt: skip
def test_every_other_builtin_rule_set_answers_as_the_command(name, tmp_path, capsys):
    """The other built-in rule sets (American is above): solved once each, served, played
    at random; every option's value is what ``perfectplay yahtzee advise`` says."""
    from starlette.testclient import TestClient

    import perfectplay
    from perfectplay.serve.app import create_app
    from perfectplay.serve.games import ScorecardTable

    table = perfectplay.solve(name)
    path = table.save(tmp_path / f"{name}.table")
    game = ScorecardTable(f"yahtzee-{name}", table.rules, table)
    rng = random.Random(name)
    checked = 0
    with TestClient(create_app([game])) as c:
        for pos in _random_play(c, f"yahtzee-{name}", rng, 30):
            if "options" in pos and not pos["over"]:
                advice = _advise(path, [], pos["state"], capsys)
                got = [(o["action"], o["value"]) for o in pos["options"]]
                assert got == [(o["action"], o["value"]) for o in advice["options"]]
                checked += 1
    assert checked > 10


@pytest.mark.parametrize("name", ["american", "american-forced-joker", "american-no-joker",
                                  "american-no-bonus", "yatzy"])  # fmt: skip
def test_boxes_score_as_the_kernel_says_in_every_builtin_rule_set(name):
    """The card after a box (points, jokers, bonuses) for random dice, five-of-a-kinds
    often, checked against the scoring kernel's next state inside ``card_after``; the
    scores add up to the card's. No solve is needed: the values play no part."""
    from dataclasses import replace

    import numpy as np

    from perfectplay.serve.scorecard import card_after, situation_notation
    from perfectplay.yahtzee import Card, Situation, rules
    from perfectplay.yahtzee.game import ScorecardGame
    from perfectplay.yahtzee.solution import YahtzeeSolution, card_state

    game = ScorecardGame(rules(name))
    table = YahtzeeSolution(game, np.zeros(game.n_states))
    rng = random.Random(name)
    kind_box, kind_bonus = game.rules.kind_box, game.rules.kind_bonus
    for _ in range(8):
        card, extra = Card(), 0
        while len(card.filled) < game.n_categories:
            face = rng.randint(1, 6)
            dice = (face,) * 5 if rng.random() < 0.4 else tuple(rng.randint(1, 6) for _ in range(5))
            now = Situation(card, tuple(sorted(dice)), 0)
            allowed = [o.label.removeprefix("score ") for o in table.options(now)]
            box = rng.choice(allowed)
            if len(set(dice)) == 1 and (card.filled.get(kind_box) or 0) > 0:
                extra += kind_bonus  # an extra five-of-a-kind while the box holds points
            after = card_after(table, now, box)
            assert set(after.filled) == set(card.filled) | {box}
            gained = after.score - card_state(game, card)[1]
            assert gained >= after.filled[box]  # the box's points, and any bonus
            assert situation_notation(now).startswith("dice ")
            card = after
        # The boxes' points and the upper bonus, counted by the library from the card
        # alone, plus the extra bonuses: the score card_after kept.
        assert card_state(game, replace(card, score=None))[1] + extra == card.score


def test_alea_values_are_the_problems(client, alea_solution):
    pos = client.post("/api/games/alea/options", json={"state": "pxres"}).json()
    keeps = alea_solution.options("PXRES")
    assert pos["state"] == "PXRES" and not pos["over"] and pos["dice"] == list("PXRES")
    assert [o["value"] for o in pos["options"]] == [k.expected_rolls for k in keeps]
    assert [o["regret"] for o in pos["options"]] == pytest.approx(
        [k.expected_rolls - keeps[0].expected_rolls for k in keeps]
    )
    assert pos["options"][0] == {
        "action": "keep P R E S (dice 1 3 4 5), reroll die 2",
        "value": 2.0,
        "regret": 0.0,
        "best": True,
    }
    start = client.post("/api/games/alea/options", json={"state": "-"}).json()
    assert start["value"] == alea_solution.value and start["roll"]["template"] == "?????"
    step = client.post("/api/games/alea/apply",
                       json={"state": "PXRES", "action": pos["options"][1]["action"]})  # fmt: skip
    assert step.json() == {"roll": {"template": "P??ES", "dice": [
        {"die": 2, "faces": "AEHOXU"}, {"die": 3, "faces": "AISOLR"}]}}  # fmt: skip
    done = client.post("/api/games/alea/options", json={"state": "PARES"}).json()
    assert done["over"] and done["word"] == "PARSE" and done["value"] == 0.0
    bad = client.post("/api/games/alea/options", json={"state": "PXREZ"})
    assert bad.status_code == 400 and bad.json()["error"] == "die 5 (ABCSCC) has no face 'Z'"


FUZZ = [
    "",
    " ",
    "dice",
    "dice ; rolls",
    "dice 1 2 3; rolls left -1",
    "dice 1 2 3; rolls left 99",
    "dice 1 2 3; rolls left 1; filled ones=1 ones=1",
    "filled",
    "filled =",
    "filled ones=x",
    "score -5",
    "bonus maybe",
    "upper 1e9",
    "rolls 1; dice 9 9 9",
    "(" * 500 + ")" * 500,
    "[1, 2",
    "{}",
    "None",
    "1" * 1500,
    "'\\x00'",
    "b'abc'",
    "float('nan')",
    "-",
    "?????",
    "PXRE",
    "pxres!",
    "dice 1 2 3; rolls left 1; filled kind=31",
    "filled chance=10; upper 2",
]


@pytest.mark.parametrize("game", ["yahtzee-mini", "pig", "tictactoe", "alea"])
def test_garbage_states_are_a_4xx(client, game):
    for text in FUZZ:
        for route, body in (
            ("options", {"state": text}),
            ("parse", {"state": text}),
            ("apply", {"state": text, "action": "roll"}),
            ("apply", {"state": text, "action": ["x"]}),
        ):
            got = client.post(f"/api/games/{game}/{route}", json=body)
            assert got.status_code in (200, 400), (route, text, got.text)
            if got.status_code == 400:
                assert list(got.json()) == ["error"] and "\n" not in got.text


@pytest.fixture(scope="module")
def ur_client(ur2_table):
    from starlette.testclient import TestClient

    from perfectplay.serve.app import create_app
    from perfectplay.serve.compiled import CompiledGame

    with TestClient(create_app([CompiledGame("ur", ur2_table)])) as c:
        yield c


def test_ur_values_are_the_tables(ur_client, ur2_table):
    """Random games of 2-piece Ur played through the API: every position's value, every
    throw's probability and every move's value are the table's."""
    model = ur2_table.model
    rng = random.Random(5)
    positions = moves = 0
    for _ in range(6):
        seen = _random_play(ur_client, "ur", rng, 200)
        for pos in seen:
            where, _, throw = pos["state"].partition(":")
            if pos["over"]:
                assert pos["value"] == 0.0  # the player to move has lost
                continue
            if not throw:
                positions += 1
                assert pos["value"] == ur2_table.value(where)
                assert [c["state"] for c in pos["chances"]] == [f"{where}:{k}" for k in range(5)]
                assert [c["probability"] for c in pos["chances"]] == [
                    1 / 16,
                    4 / 16,
                    6 / 16,
                    4 / 16,
                    1 / 16,
                ]
            else:
                moves += 1
                want = ur2_table.options((where, int(throw)))
                assert pos["options"] == [o.to_json() for o in want]
                assert pos["value"] == want[0].value
        assert seen[-1]["over"]
    assert positions > 50 and moves > 50
    assert model.describe(model.parse("4,8+0/6")) == "4,8/6"


def test_ur_moves_lead_where_the_model_says(ur_client, ur2_table):
    # Step 4 is a rosette: entering there with a throw of 4 gives another roll (no pass);
    # 4 to 7 passes the turn (the position then seen from the other player).
    enter = ur_client.post("/api/games/ur/apply", json={"state": "/6:4", "action": "enter to 4"})
    assert enter.json() == {"state": "4/6", "passes": False}
    move = ur_client.post("/api/games/ur/apply", json={"state": "4/6:3", "action": "move 4 to 7"})
    assert move.json() == {"state": "6/7", "passes": True}
    zero = ur_client.post("/api/games/ur/options", json={"state": "4/6:0"}).json()
    assert [o["action"] for o in zero["options"]] == ["pass"]
    for bad, message in [("4/6:7", "the throw after ':' is 0..4"), ("5/5", "two pieces"),
                         ("9,9/", "distinct"), ("4/6:x", "0..4")]:  # fmt: skip
        got = ur_client.post("/api/games/ur/options", json={"state": bad})
        assert got.status_code == 400 and message in got.json()["error"], (bad, got.json())
    roll_first = ur_client.post("/api/games/ur/apply", json={"state": "4/6", "action": "pass"})
    assert roll_first.status_code == 400 and "throw the dice first" in roll_first.json()["error"]


def test_answers_are_kept_and_the_same(games):
    from starlette.testclient import TestClient

    from perfectplay.serve.app import create_app

    app = create_app(games)
    with TestClient(app) as c:
        url = "/api/games/yahtzee-mini/options"
        first = c.post(url, json={"state": "dice 1 2 3; rolls left 1"})
        again = c.post(url, json={"situation": "dice 1 2 3; rolls left 1"})
        spelt = c.post(url, json={"state": "DICE 1 2 3 | rolls 1"})
        assert first.status_code == 200 and first.content == again.content == spelt.content
        assert app.state.answers.hits >= 1 and len(app.state.answers) == 2  # two spellings
        assert first.headers["content-type"] == "application/json"
        nothing = create_app(games, cache_bytes=0)
        with TestClient(nothing) as fresh:
            assert (
                fresh.post(url, json={"state": "dice 1 2 3; rolls left 1"}).content == first.content
            )
        bad = c.post(url, json={"state": "dice 1 2; rolls left 1"})
        assert (
            bad.status_code == 400
            and c.post(url, json={"state": "dice 1 2; rolls left 1"}).status_code == 400
        )


def test_every_game_warms_up_before_the_workers_fork(games, ur2_table):
    """`warm` plays the first option and chance from the start: it answers, changes
    nothing, and leaves every answer as it was."""
    from perfectplay.serve.compiled import CompiledGame

    for game in [*games, CompiledGame("ur", ur2_table)]:
        before = game.position(game.start())
        game.warm()
        assert game.position(game.start()) == before
