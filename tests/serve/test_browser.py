"""The page in a real browser (headless Chromium through playwright): a Yahtzee turn by
clicking, undo and redo, hidden hints, dice set by hand, Pig against the perfect opponent
to the end, a record pasted back; no console error and no request leaving the server.
The screenshots in docs/serve.md are taken here, so they show the page as it is."""

from __future__ import annotations

import re
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')"
)
expect = playwright_api.expect

DOCS = Path(__file__).resolve().parents[2] / "docs" / "serve"


def _chromium() -> str | None:
    for candidate in ("/usr/bin/chromium", shutil.which("chromium") or ""):
        if candidate and Path(candidate).exists():
            return candidate
    return None


@pytest.fixture(scope="module")
def server(american, pig_solution, tictactoe_solution, alea_solution, ur2_table, race_game):
    import uvicorn

    from perfectplay.serve.app import create_app
    from perfectplay.serve.compiled import CompiledGame
    from perfectplay.serve.gallery import AleaGame
    from perfectplay.serve.games import ModelGame, ScorecardTable

    games = [
        ScorecardTable("yahtzee-american", american.rules, american),
        ModelGame("pig", pig_solution, "Pig(goal=20)"),
        ModelGame("tictactoe", tictactoe_solution, "TicTacToe"),
        AleaGame("alea", alea_solution),
        CompiledGame("ur-finkel-pieces-2", ur2_table, "Ur(finkel+pieces=2) (table ur2)"),
        race_game,
    ]
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(create_app(games, hosts=[]), log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(200):
        if srv.started:
            break
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    chromium = _chromium()
    if chromium is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium)")
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=chromium, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        yield b
        b.close()


# The page's dice, seeded: the same game (and the same screenshots) on every run.
SEEDED = """
(() => {
  let a = 20261125;
  Math.random = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
})();
"""


def _context(browser, **options):
    context = browser.new_context(**options)
    context.add_init_script(SEEDED)
    return context


@pytest.fixture
def page(browser, server):
    """A page of the server that records console errors and every request it makes."""
    context = _context(browser, viewport={"width": 1200, "height": 900})
    pg = context.new_page()
    problems: list[str] = []
    pg.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: problems.append(str(e)))
    pg.on("request", lambda r: None if r.url.startswith(server) else problems.append(r.url))
    pg.set_default_timeout(20_000)
    yield pg
    context.close()
    assert problems == [], problems


def _open(page, server, game):
    page.goto(f"{server}/?game={game}")
    page.wait_for_selector("button.option")


def _turn(page):
    return page.locator("#turn").inner_text()


def _by_dice(action):
    kept = action.split()[1:]
    return [] if kept == ["nothing"] else [int(d) for d in kept]


def test_a_yahtzee_turn_by_clicking_with_undo_redo_and_hints(page, server):
    _open(page, server, "yahtzee-american")
    assert "3 rolls left" not in _turn(page) and "2 rolls left" in _turn(page)
    first = page.locator("button.option").first
    assert "best" in first.get_attribute("class") and first.locator(".loss").inner_text() == "best"
    DOCS.mkdir(exist_ok=True)
    page.screenshot(path=str(DOCS / "yahtzee.png"), full_page=True)
    state0 = page.locator("#state").inner_text()
    # Keep what the second option keeps: a loss is recorded.
    second = page.locator("button.option").nth(1)
    action = second.get_attribute("data-action")
    second.click()
    expect(page.locator("#turn")).to_contain_text("(1 roll left)")
    assert page.locator("#history li").count() == 1
    assert action in page.locator("#history li").first.inner_text()
    # The keyboard picks the best option; the last roll asks for a box.
    page.keyboard.press("1")
    expect(page.locator("#turn")).to_contain_text("0 rolls left")
    page.locator("button.option").first.click()  # score the best box
    expect(page.locator("#history li")).to_have_count(3)
    assert "filled" in page.locator("#state").inner_text()
    assert page.locator("#card tr.filled").count() == 1
    # The upper bonus has its row, so that the card adds up to its score.
    bonus = page.locator("#card tr.bonus").inner_text()
    assert re.fullmatch(r"upper bonus\s+upper \d+ of 63", bonus), bonus
    rows = page.locator("#card tr td:first-child").all_inner_texts()
    assert rows[rows.index("sixes") + 1] == "upper bonus"  # under the upper boxes
    # Undo three times: back to the first roll; redo once.
    for _ in range(3):
        page.click("#undo")
    assert page.locator("#state").inner_text() == state0
    assert page.locator("#history li").count() == 0
    page.keyboard.press("y")
    assert page.locator("#history li").count() == 1
    # Hide the hints: no value, no best mark, no loss.
    page.check("#hide")
    assert page.locator("button.option.best").count() == 0
    assert page.locator("#value").inner_text() == ""
    assert all(t == "" for t in page.locator("button.option .num").all_inner_texts())
    # ... and the options in the game's own order (keeps by their dice), the keys with them.
    shown = [b.get_attribute("data-action") for b in page.locator("button.option").all()]
    assert shown[0] == "keep nothing" and shown == sorted(shown, key=_by_dice)
    page.keyboard.press("1")
    expect(page.locator("#history li")).to_have_count(2)
    assert page.locator("#history li").nth(1).inner_text() == "keep nothing"
    page.keyboard.press("h")
    assert page.locator("button.option.best").count() >= 1


def test_dice_set_by_hand(page, server):
    _open(page, server, "yahtzee-american")
    page.check("#byhand")
    page.click("#new")
    page.wait_for_selector("#set-dice")
    for i, face in enumerate(["6", "6", "6", "1", "2"]):
        page.locator("select.set-die").nth(i).select_option(face)
    page.click("#set-dice")
    page.wait_for_selector("button.option")
    assert page.locator("#state").inner_text() == "dice 1 2 6 6 6; rolls left 2"
    assert page.locator(".die").all_inner_texts() == ["1", "2", "6", "6", "6"]
    page.locator("button.option[data-action='keep 6 6 6']").click()
    page.wait_for_selector("#set-dice")
    assert page.locator("select.set-die").count() == 2
    page.locator("select.set-die").nth(0).select_option("6")
    page.locator("select.set-die").nth(1).select_option("6")
    page.click("#set-dice")
    expect(page.locator("#state")).to_have_text(re.compile(r"^dice 6 6 6 6 6"))
    assert "best" in page.locator("button.option").first.get_attribute("class")


def test_pig_against_the_perfect_opponent_to_the_end(page, server):
    _open(page, server, "pig")
    page.select_option("#mode", "first")
    page.wait_for_selector("button.option")
    for _ in range(400):
        if "Game over" in _turn(page):
            break
        before = page.locator("#history li").count()
        page.keyboard.press("1")  # the best move, for the person too
        expect(page.locator("#history li")).not_to_have_count(before)
    assert "Game over" in _turn(page)
    assert page.locator("#history li").count() >= 10
    # The list's numbers sit in its padding, which its scroll box clips: "10." must fit.
    room, marker = page.evaluate("""() => {
      const ol = document.getElementById("history");
      const css = getComputedStyle(ol.querySelector("li"));
      const ctx = document.createElement("canvas").getContext("2d");
      ctx.font = `${css.fontWeight} ${css.fontSize} ${css.fontFamily}`;
      return [parseFloat(getComputedStyle(ol).paddingLeft), ctx.measureText("100. ").width];
    }""")
    assert room >= marker, (room, marker)
    assert "Player 1" in page.locator("#totals").inner_text()
    assert page.locator("#chart polyline").count() == 1
    page.screenshot(path=str(DOCS / "pig.png"), full_page=True)


def _hotseat_tictactoe(page, server, squares):
    """Tic-tac-toe for two at the page, ``squares`` played in turn."""
    _open(page, server, "tictactoe")
    page.select_option("#mode", "hotseat")
    page.wait_for_selector("button.option")
    for n, square in enumerate(squares):
        page.locator(f"button.option[data-action='{square}']").click()
        expect(page.locator("#history li")).to_have_count(n + 1)


def test_a_record_pasted_back(page, server):
    _hotseat_tictactoe(page, server, ("0", "4", "1"))
    record = page.locator("#record").input_value()
    assert record.splitlines()[0] == "# perfectplay serve record: tictactoe"
    assert record.splitlines()[1] == "P1 '.........' > 0"
    assert record.splitlines()[-1] == "P2 'XX..O....'"
    page.click("#new")
    expect(page.locator("#history li")).to_have_count(0)
    page.fill("#record", record)
    page.click("#paste")
    expect(page.locator("#history li")).to_have_count(3)
    assert page.locator("#state").inner_text() == "'XX..O....'"
    assert page.locator("button.option").first.get_attribute("data-action") == "2"  # O blocks
    page.click("#undo")
    assert page.locator("#history li").count() == 2


def test_an_incoherent_record_is_refused_and_the_game_kept(page, server):
    # A hand-edited record whose line cannot follow the line before (a square that
    # appeared from nowhere, a die Pig does not have, the wrong player after a roll) is
    # refused in words, and the game on the page stays as it was.
    _hotseat_tictactoe(page, server, ("4",))
    head = "# perfectplay serve record: "
    for record in (
        f"{head}tictactoe\nP1 '.........' > 0\nP2 'X........' > 4\nP1 '..X.O....' > 0",
        f"{head}tictactoe\nP1 '.........' > 0\nP1 'X........'",
        f"{head}pig\nP1 (0, 0, 0) > roll\nP1 (0, 0, 9)",
        f"{head}pig\nP1 (0, 0, 0) > roll\nP2 (0, 0, 3)",
    ):
        page.fill("#record", record)
        page.click("#paste")
        expect(page.locator("#error")).to_contain_text("cannot follow")
        assert page.locator("#game").input_value() == "tictactoe"
        assert page.locator("#state").inner_text() == "'....X....'"
        assert page.locator("#history li").count() == 1
    page.fill("#record", f"{head}pig\nP1 (0, 0, 0) > roll\nP1 (0, 0, 3)")
    page.click("#paste")
    expect(page.locator("#state")).to_contain_text("(0, 0, 3)")
    assert page.locator("#error").is_hidden()


def test_a_reload_keeps_the_game_and_its_undo(page, server):
    # Reloading the page (a slip of the finger, a phone waking up) keeps the game, the
    # opponent's mode and the undo history, in this tab only.
    _hotseat_tictactoe(page, server, ("0", "4", "1"))
    page.reload()
    expect(page.locator("#state")).to_have_text("'XX..O....'")
    assert page.locator("#history li").count() == 3
    assert page.locator("#mode").input_value() == "hotseat"
    page.click("#undo")
    expect(page.locator("#state")).to_have_text("'X...O....'")
    other = page.context.new_page()  # another tab starts its own game
    other.goto(f"{server}/?game=tictactoe")
    expect(other.locator("#state")).to_have_text("'.........'")
    other.close()


def test_a_quicker_loss_is_not_shown_as_best(page, server):
    # In a lost tic-tac-toe position every move loses (no regret in the outcome), but
    # only the slowest is best: the others say how long the best holds out.
    _hotseat_tictactoe(page, server, ())
    page.fill("#typed", "'XX.O.....'")
    page.select_option("#typed-player", "1")
    page.click("#jump button[type=submit]")
    quick = page.locator("button.option[data-action='4']")
    expect(quick.locator(".loss")).to_have_text("-0 (best in 4)")
    quick.click()
    expect(page.locator("#history li")).to_have_text(["P2: 4 (loss 0 (best in 4))"])
    assert page.locator("#history li").get_attribute("class") == "lost"


def test_a_forced_move_is_listed_but_not_counted_as_a_decision(page, server):
    # Pig's first move (roll: holding 0 is not allowed) is no choice: it must not dilute
    # the mean loss per decision.
    _open(page, server, "pig")
    page.select_option("#mode", "hotseat")
    page.wait_for_selector("button.option")
    page.keyboard.press("1")
    expect(page.locator("#history li").first).to_have_text("P1: roll (forced)")
    assert "Player 1" not in page.locator("#totals").inner_text()


def test_another_game_chosen_while_an_answer_is_awaited(browser, server):
    # Pig's answers are held back a second, as a rule set solved on first use is: the
    # game chosen meanwhile is the one played when they come, not Pig's state under
    # tic-tac-toe's name (which then asked tic-tac-toe about Pig's positions).
    context = _context(browser)
    context.add_init_script("""(() => {
      const plain = window.fetch;
      window.fetch = (url, init) => String(url).includes("/pig/")
        ? new Promise((ok) => setTimeout(() => ok(plain(url, init)), 1000)) : plain(url, init);
    })();""")
    pg = context.new_page()
    _open(pg, server, "tictactoe")
    pg.select_option("#game", "pig")
    pg.select_option("#game", "tictactoe")
    expect(pg.locator("#state")).to_have_text("'.........'")
    pg.wait_for_timeout(1500)  # Pig's answer has come and gone
    expect(pg.locator("#state")).to_have_text("'.........'")
    assert pg.locator("#about").inner_text().startswith("TicTacToe")
    assert pg.locator("#error").is_hidden()
    context.close()


def test_a_typed_position_with_its_mover_and_a_cost_games_total(page, server):
    _open(page, server, "tictactoe")
    page.select_option("#mode", "first")  # the perfect opponent is player 2 (O)
    page.wait_for_selector("button.option")
    page.fill("#typed", "'XO.X.....'")
    page.select_option("#typed-player", "1")  # O to move: the opponent answers at once
    page.click("#jump button[type=submit]")
    expect(page.locator("#history li")).to_have_count(1)
    assert page.locator("#history li").inner_text().startswith("P2: 6")  # O blocks
    assert _turn(page) == "Player 1 to choose"
    # A one-player cost game ends with what its rolls cost, not the 0 still to come.
    _open(page, server, "race")
    page.fill("#typed", "9")
    page.click("#jump button[type=submit]")
    page.locator("button.option[data-action='(9, 2)']").click()  # reaches 10: costs 1
    expect(page.locator("#turn")).to_have_text("Game over")
    assert page.locator("#value").inner_text() == "Total: 1 roll (from the state typed)"
    assert page.locator("#totals").inner_text().startswith("1 decision, ")


def test_alea_rolled_by_hand_then_played_to_a_word(page, server):
    page.goto(f"{server}/?game=alea")
    page.check("#byhand")
    page.click("#new")
    page.wait_for_selector("#set-dice")
    for i, face in enumerate("PXRES"):
        page.locator("select.set-die").nth(i).select_option(face)
    page.click("#set-dice")
    expect(page.locator("#state")).to_have_text("PXRES")
    best = page.locator("button.option").first
    assert best.get_attribute("data-action") == "keep P R E S (dice 1 3 4 5), reroll die 2"
    assert best.locator(".num").inner_text() == "2"  # expected rolls
    best.click()
    expect(page.locator("select.set-die")).to_have_count(1)
    # A record copied while the roll waits ends with the choice; pasted back, it waits again.
    record = page.locator("#record").input_value()
    assert record.splitlines()[1:] == ["PXRES > keep P R E S (dice 1 3 4 5), reroll die 2"]
    page.click("#new")
    expect(page.locator("#history li")).to_have_count(0)
    page.fill("#record", record)
    page.click("#paste")
    expect(page.locator("#history li")).to_have_count(1)
    expect(page.locator("select.set-die")).to_have_count(1)
    page.locator("select.set-die").select_option("A")
    page.click("#set-dice")
    expect(page.locator("#turn")).to_have_text("Game over")
    assert page.locator("#value").inner_text() == "The dice spell PARSE in 2 rolls"
    page.uncheck("#byhand")
    page.click("#new")  # rolled by the page now: play the best keep until a word shows
    # The last game's "Game over" stays until the new one is drawn: wait for it to go.
    expect(page.locator("#turn")).not_to_have_text("Game over")
    for _ in range(200):
        if page.locator("#turn").inner_text() == "Game over":
            break
        before = page.locator("#history li").count()
        page.keyboard.press("1")
        expect(page.locator("#history li")).not_to_have_count(before)
    assert page.locator("#value").inner_text().startswith("The dice spell ")


def test_ur_from_its_table_throws_set_by_hand_then_against_the_perfect_opponent(page, server):
    page.goto(f"{server}/?game=ur-finkel-pieces-2")
    page.select_option("#mode", "hotseat")
    page.check("#byhand")
    page.click("#new")
    # The throw by hand: the five throws of four binary dice with their chances.
    page.wait_for_selector("button.outcome")
    assert page.locator("button.outcome").all_inner_texts() == [
        "throw 0 (1/16)", "throw 1 (4/16)", "throw 2 (6/16)", "throw 3 (4/16)",
        "throw 4 (1/16)",
    ]  # fmt: skip
    page.locator("button.outcome", has_text="throw 4").click()
    expect(page.locator("#state")).to_contain_text("/:4")
    assert page.locator("button.option").all_inner_texts()[0].split("\n")[1] == "enter to 4"
    page.keyboard.press("1")  # enter on the rosette: another throw for the same player
    expect(page.locator("#history li")).to_have_count(1)
    assert page.locator("#turn").inner_text() == "Player 1: roll"
    page.locator("button.outcome", has_text="throw 2").click()
    page.locator("button.option").first.click()  # no rosette now: player 2 moves
    expect(page.locator("#turn")).to_have_text("Player 2: roll")
    assert "(as seen by the player to move)" in page.locator("#state").inner_text()
    # Thrown by the page now, a new game against the perfect opponent: a few moves each.
    page.uncheck("#byhand")
    page.select_option("#mode", "first")
    for _ in range(6):
        expect(page.locator("button.option").first).to_be_enabled()
        before = page.locator("#history li").count()
        page.keyboard.press("1")
        expect(page.locator("#history li")).not_to_have_count(before)
    assert "P2: " in page.locator("#history").inner_text()  # the opponent moved
    record = page.locator("#record").input_value().splitlines()
    assert record[0] == "# perfectplay serve record: ur-finkel-pieces-2" and ":" in record[1]
    page.screenshot(path=str(DOCS / "ur.png"), full_page=True)


def test_the_page_at_a_phones_width(browser, server):
    context = _context(browser, viewport={"width": 390, "height": 844}, is_mobile=True)
    pg = context.new_page()
    pg.goto(f"{server}/?game=yahtzee-american")
    pg.wait_for_selector("button.option")
    width = pg.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide on a 390 px screen"
    pg.screenshot(path=str(DOCS / "phone.png"), full_page=False)
    context.close()
