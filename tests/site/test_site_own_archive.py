"""Someone else's archive: ``perfectplay site new`` then ``site build`` (the two commands of
docs/own-archive.md), and the fixture archive in the seed's layout (C++ and Python entries
with judge data) looked at in headless Chromium, as test_site_real does for ours."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import pytest

pytest.importorskip("jinja2")
pytest.importorskip("pygments")

from perfectplay.site import SiteError, build_site  # noqa: E402
from perfectplay.site.cli import main as site_main  # noqa: E402
from perfectplay.site.starter import ENTRY  # noqa: E402

try:
    from perfectplay.site.pandoc import pandoc as _find_pandoc

    _find_pandoc()
except SiteError:  # pragma: no cover
    pytest.skip("pandoc is not installed (pip install -e '.[site]')", allow_module_level=True)

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "own-archive"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def test_empty_folder_to_built_site_in_two_commands(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert site_main(["new", "my-archive"]) == 0
    assert "perfectplay site build --root my-archive" in capsys.readouterr().err
    assert site_main(["build", "--root", "my-archive", "--quiet"]) == 0
    out = tmp_path / "my-archive" / "site-out"
    page = (out / "archive" / ENTRY.split("/", 1)[1] / "index.html").read_text()
    assert "passed 3 of 3 tests" in page and "<title>A. Sum of Two · My archive</title>" in page
    solution = "solution.cpp" if shutil.which("g++") else "solution.py"
    assert f'data-file="{ENTRY}/{solution}"' in page
    # Built from inside the archive, it is found by its site.toml.
    monkeypatch.chdir(tmp_path / "my-archive" / "competitive_programming")
    assert site_main(["build", "--quiet"]) == 0


@pytest.mark.parametrize("action", ["build", "serve"])
def test_build_outside_an_archive_names_the_folder(tmp_path, monkeypatch, capsys, action):
    # Issue 23: it used to build perfectplay's own site instead, silently.
    (tmp_path / "unrelated").mkdir()
    monkeypatch.chdir(tmp_path / "unrelated")
    assert site_main([action, "--quiet"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"perfectplay: site: {tmp_path / 'unrelated'}: no archive here")
    assert "site.toml" in lines[0] and "--root" in lines[0]
    assert list((tmp_path / "unrelated").iterdir()) == []


def test_new_refuses_a_folder_that_holds_anything(tmp_path, capsys):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine\n")
    assert site_main(["new", str(tmp_path / "mine")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "refusing to write a new archive into a non-empty folder" in err[0]
    assert sorted(p.name for p in (tmp_path / "mine").iterdir()) == ["notes.txt"]


@pytest.mark.browser
def test_fixture_archive_in_a_real_browser(tmp_path):
    playwright_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')"
    )
    chromium = next(
        (
            c
            for c in ("/usr/bin/chromium", shutil.which("chromium") or "")
            if c and Path(c).is_file()
        ),
        None,
    )
    if chromium is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium)")
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    from perfectplay.site.serve import make_server

    out = tmp_path / "out"
    build_site(FIXTURE, out, cache=tmp_path / "cache")
    manifest = json.loads((out / "manifest.json").read_text())
    server = make_server(out, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    problems: list[str] = []
    outside: list[str] = []
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        with playwright_api.sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=chromium, args=["--headless", "--no-sandbox", "--disable-gpu"]
            )
            context = browser.new_context(viewport={"width": 1280, "height": 900})

            def route(route):
                if route.request.url.startswith(origin + "/"):
                    route.continue_()
                else:
                    outside.append(route.request.url)
                    route.abort()

            context.route("**/*", route)
            page = context.new_page()
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on(
                "response",
                lambda r: problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None,
            )
            page.goto(f"{origin}/index.html")
            assert page.locator("h1").inner_text() == "Ada's archive"
            # No docs/ folder: no link to documentation that is not there.
            assert page.locator(".top-nav a").all_inner_texts() == ["Archive"]
            assert page.locator("table.entries tbody tr").count() == 2
            badges = page.locator("table.entries .verdict.ok").all_inner_texts()
            assert badges == ["3/3", "3/3"]
            page.screenshot(path=str(ARTIFACTS / "own-archive-index.png"), full_page=True)
            for entry in manifest["entries"]:
                page.goto(f"{origin}/{entry['url']}")
                assert page.locator("#solution math").count() > 0
                text = page.locator("#statement .rendered").inner_text()
                assert "$" not in text and "\\le" not in text
                for source in entry["sources"]:
                    shown = page.locator(f'pre[data-file="{source["path"]}"]').text_content()
                    assert shown == (out / source["raw"]).read_text(encoding="utf-8")
                for sample in entry["samples"]:
                    shown = page.locator(f'pre[data-output="{sample["name"]}"]').text_content()
                    assert shown == sample["output"]
                judge = page.locator("p.judge .verdict.ok")
                assert judge.inner_text().startswith("passed 3 of 3 tests, slowest under")
                if entry["id"] == "demo/2024/A-dice-sum":
                    page.screenshot(path=str(ARTIFACTS / "own-archive-entry.png"))
            page.goto(f"{origin}/search.html?q=coins")
            page.locator("#search-results .hit").first.wait_for(timeout=5000)
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    assert outside == [] and problems == [], (outside, problems)
