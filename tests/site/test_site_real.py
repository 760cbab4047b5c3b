"""The site of this repository: every archive entry and documentation page, built for real,
then looked at by a real browser (headless Chromium through playwright).

The build runs every entry's samples through the gallery's commands, so this module also
checks, end to end, that the archive agrees with the solvers.
"""

from __future__ import annotations

import concurrent.futures as cf
import doctest
import hashlib
import html
import json
import re
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

pytest.importorskip("jinja2")
pytest.importorskip("pygments")

from perfectplay.site import SiteError, build_site  # noqa: E402
from perfectplay.site.samples import command_argv  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
OWN_DOCS = ("index", "install", "cli", "api")  # the pages this module's author keeps true

try:
    from perfectplay.site.pandoc import pandoc as _find_pandoc

    _find_pandoc()
except SiteError:  # pragma: no cover
    pytest.skip("pandoc is not installed (pip install -e '.[site]')", allow_module_level=True)


def _tree_state() -> str:
    """What the build reads from git and from edited files: HEAD, the status, and the
    content of every file that differs from HEAD. Another engineer editing the checkout
    during the test changes it; a static tree (CI) does not."""
    if not shutil.which("git") or not (ROOT / ".git").exists():
        return ""

    def git(*args: str) -> bytes:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True).stdout

    status = git("status", "--porcelain=v1", "-z", "--untracked-files=all")
    digest = hashlib.sha256(git("rev-parse", "HEAD") + status)
    for item in status.split(b"\0"):
        path = ROOT / item[3:].decode("utf-8", "replace")
        if len(item) > 3 and path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def tree_before() -> str:
    return _tree_state()


@pytest.fixture(scope="module")
def site(tmp_path_factory, tree_before) -> tuple[Path, dict]:
    # tree_before is taken first: the state of the checkout this build read.
    out = tmp_path_factory.mktemp("real-site") / "out"
    try:
        build_site(ROOT, out)
    except SiteError as exc:
        pytest.fail(f"the repository's site does not build: {exc}")
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    return out, manifest


def test_the_archive_has_its_entries(site):
    out, manifest = site
    ids = [e["id"] for e in manifest["entries"]]
    assert "icpc/2023/K-alea-iacta-est" in ids
    assert ids == sorted(ids)
    index = (out / "index.html").read_text(encoding="utf-8")
    for entry in manifest["entries"]:
        assert f'data-entry="{entry["id"]}"' in index


def test_every_entry_shows_the_exact_source_files(site, grab):
    out, manifest = site
    for entry in manifest["entries"]:
        page = (out / entry["url"]).read_text(encoding="utf-8")
        shown = grab(page, "data-file")
        for source in entry["sources"]:
            data = (ROOT / source["path"]).read_bytes()
            assert shown[source["path"]] == data.decode("utf-8"), source["path"]
            assert (out / source["raw"]).read_bytes() == data
        if entry["package"] is not None:
            # Every file of the problem's package is on its page, whatever the entry says.
            package = ROOT / "src" / "perfectplay" / "problems" / entry["package"]
            listed = {s["path"] for s in entry["sources"]}
            for path in package.rglob("*"):
                if path.is_file() and "__pycache__" not in path.parts:
                    assert path.relative_to(ROOT).as_posix() in listed, path
            assert entry["command"] == f"perfectplay {entry['package']}"
        folder = entry["url"].rsplit("/", 1)[0]
        tex = f"{folder}/solution.tex"
        assert shown[tex] == (ROOT / tex).read_text(encoding="utf-8")


def _run(entry: dict, sample: dict) -> str:
    res = subprocess.run(
        command_argv(entry["command"]),
        cwd=ROOT,
        capture_output=True,
        input=(ROOT / sample["input"]).read_bytes(),
        timeout=300,
    )
    assert res.returncode == 0, res.stderr.decode(errors="replace")
    return res.stdout.decode("utf-8")


def test_every_sample_shows_the_real_output(site, grab):
    out, manifest = site
    # The fixture tests check every sample of a toy entry; here the first sample of each
    # entry is run again, which keeps this module fast while covering every command.
    jobs = [(e, e["samples"][0]) for e in manifest["entries"]]
    with cf.ThreadPoolExecutor(max_workers=2) as pool:
        real = list(pool.map(lambda job: _run(*job), jobs))
    for (entry, sample), output in zip(jobs, real, strict=True):
        page = (out / entry["url"]).read_text(encoding="utf-8")
        assert grab(page, "data-output")[sample["name"]] == output, (entry["id"], sample["name"])
        assert grab(page, "data-input")[sample["name"]] == (ROOT / sample["input"]).read_text()
        assert sample["output"] == output
    for entry in manifest["entries"]:
        page = (out / entry["url"]).read_text(encoding="utf-8")
        outputs = grab(page, "data-output")
        assert sorted(outputs) == sorted(s["name"] for s in entry["samples"])
        for sample in entry["samples"]:
            assert outputs[sample["name"]] == sample["output"]


def test_documentation_pages_and_references(site):
    out, manifest = site
    names = [d["source"] for d in manifest["docs"]]
    assert names[:4] == [f"docs/{n}.md" for n in OWN_DOCS]
    api = (out / "docs" / "api.html").read_text(encoding="utf-8")
    assert 'id="perfectplay.site.build_site"' in api
    assert 'id="perfectplay.errors.InputError"' in api
    assert "<!-- perfectplay:" not in api
    cli = (out / "docs" / "cli.html").read_text(encoding="utf-8")
    assert 'id="cli-site"' in cli and 'id="cli-alea"' in cli
    assert "perfectplay site build --out /tmp/site" in cli  # the command's own --help


@pytest.mark.slow
def test_the_real_build_is_byte_identical_twice(site, tree_before, tmp_path, snapshot):
    out, _ = site
    again = tmp_path / "again"
    # One job instead of several: programs finish in another order, pages must not care.
    build_site(ROOT, again, jobs=1, quiet=True, force=True)  # every sample run again
    first, second = snapshot(out), snapshot(again)
    if first != second:
        changed = sorted(k for k in first.keys() | second.keys() if first.get(k) != second.get(k))
        raw_moved = any(k.startswith("raw/") for k in changed)
        if raw_moved or _tree_state() != tree_before:
            pytest.skip(f"the checkout changed while the test ran ({changed[:3]} ...)")
        pytest.fail(f"two builds of the same tree differ in {len(changed)} files: {changed[:5]}")
    assert len(first) > 50


def test_documentation_examples_run():
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    examples = "\n".join(re.findall(r"^```pycon\n(.*?)^```", text, re.MULTILINE | re.DOTALL))
    test = doctest.DocTestParser().get_doctest(examples, {}, "api.md", "docs/api.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    result = runner.run(test)
    assert result.attempted >= 8 and result.failed == 0


# ---- the browser -------------------------------------------------------------------------

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _chromium() -> str | None:
    for candidate in ("/usr/bin/chromium", shutil.which("chromium") or ""):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def _distinct_word(text: str) -> str:
    """A long word of a statement, to search for."""
    words = sorted(set(re.findall(r"[A-Za-z]{6,}", text)), key=lambda w: (-len(w), w))
    assert words, "a statement without words"
    return words[0].lower()


@pytest.mark.browser
def test_in_a_real_browser(site):
    out, manifest = site
    playwright_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')"
    )
    chromium = _chromium()
    if chromium is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium)")
    from perfectplay.site.serve import make_server

    server = make_server(out, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    problems: list[str] = []
    outside: list[str] = []
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        with playwright_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1280, "height": 900})

            def route(route):
                if route.request.url.startswith(origin + "/"):
                    route.continue_()
                else:
                    outside.append(route.request.url)
                    route.abort()

            context.route("**/*", route)
            page = context.new_page()
            page.on(
                "console",
                lambda m: (
                    problems.append(f"console {m.type}: {m.text}")
                    if m.type in ("error", "warning")
                    else None
                ),
            )
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))

            def failed(request):
                # ERR_ABORTED: the page was left before a late request (the favicon) ended;
                # requests that leave 127.0.0.1 are aborted by route() and listed in `outside`.
                if "ERR_ABORTED" not in (request.failure or ""):
                    problems.append(f"request failed: {request.url}: {request.failure}")

            page.on("requestfailed", failed)
            page.on(
                "response",
                lambda r: problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None,
            )

            page.goto(f"{origin}/index.html")
            rows = page.locator("table.entries tbody tr")
            assert rows.count() == len(manifest["entries"])
            page.screenshot(path=str(ARTIFACTS / "site-index.png"), full_page=True)

            for entry in manifest["entries"]:
                page.goto(f"{origin}/{entry['url']}")
                for section in ("#statement .rendered", "#solution .rendered"):
                    text = page.locator(section).inner_text()
                    for raw in ("\\frac", "$", "\\begin", "\\[", "\\sum", "\\le"):
                        assert raw not in text, (entry["id"], section, raw)
                assert page.locator("#solution math").count() > 0, entry["id"]
                width = page.locator("#solution math").first.evaluate(
                    "m => m.getBoundingClientRect().width"
                )
                assert width > 0  # laid out as MathML, not left as an unknown element
                font = (
                    "document.fonts.ready.then(fs => [...fs].some(f => "
                    "f.family.includes('Latin Modern Math') && f.status === 'loaded'))"
                )
                assert page.evaluate(font)  # the math font shipped in the site was loaded
                files = page.locator("pre[data-file]")
                assert files.count() == len(entry["sources"]) + 1  # sources and solution.tex
                for source in entry["sources"]:
                    shown = page.locator(f'pre[data-file="{source["path"]}"]').text_content()
                    # The bytes the build read (the tree may have moved on since).
                    assert shown == (out / source["raw"]).read_text(encoding="utf-8")
                for sample in entry["samples"]:
                    shown = page.locator(f'pre[data-output="{sample["name"]}"]').text_content()
                    assert shown == sample["output"]
                assert page.locator(".verdict.ok").count() == len(entry["samples"])
                if entry["id"] == "icpc/2023/K-alea-iacta-est":
                    page.screenshot(path=str(ARTIFACTS / "site-entry.png"), full_page=False)
                    page.goto(f"{origin}/{entry['url']}#solution")
                    page.screenshot(path=str(ARTIFACTS / "site-entry-solution.png"))

            for doc in manifest["docs"]:
                page.goto(f"{origin}/{doc['url']}")
                assert page.locator("article.doc-body h1").count() >= 1

            # Search finds each entry by a word of its statement, typed on the index page.
            for entry in manifest["entries"]:
                statement = (ROOT / "archive" / entry["id"] / "statement.md").read_text("utf-8")
                word = _distinct_word(html.unescape(statement))
                page.goto(f"{origin}/index.html")
                page.fill(".big-search input", word)
                hit = page.locator(f'#index-results .hit[data-url="{entry["url"]}"]')
                hit.wait_for(timeout=5000)
                assert hit.count() == 1, (entry["id"], word)
            page.goto(f"{origin}/search.html?q=dice")
            page.locator("#search-results .hit").first.wait_for(timeout=5000)
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    assert outside == [], f"requests outside 127.0.0.1: {outside}"
    assert problems == [], problems
    assert (ARTIFACTS / "site-index.png").stat().st_size > 0
    assert (ARTIFACTS / "site-entry.png").stat().st_size > 0
