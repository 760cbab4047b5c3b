"""``site.toml``: someone else's archive names itself and says where its entries live."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("jinja2")
pytest.importorskip("pygments")

from perfectplay.site import SiteError, build_site  # noqa: E402
from perfectplay.site.cli import main as site_main  # noqa: E402
from perfectplay.site.config import Config, load_config  # noqa: E402

try:
    from perfectplay.site.pandoc import pandoc as _find_pandoc

    _find_pandoc()
except SiteError:  # pragma: no cover
    pytest.skip("pandoc is not installed (pip install -e '.[site]')", allow_module_level=True)

FIXTURE = Path(__file__).resolve().parent / "fixture"
SEED_ENTRY = "competitive_programming/demo/2024/A-sum-of-numbers"
CONFIG = """\
title = "Ada's solutions"
description = "Problems I solved, with proofs."
entries = ["competitive_programming/*/*/*"]
"""


def seed_layout(tmp_path: Path, config: str = CONFIG) -> Path:
    """The fixture with its entry moved to the seed's layout and a site.toml."""
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE, repo)
    (repo / "competitive_programming").mkdir()
    shutil.move(repo / "archive" / "demo", repo / "competitive_programming" / "demo")
    (repo / "archive").rmdir()
    index = repo / "docs" / "index.md"
    index.write_text(index.read_text().replace("../archive/", "../competitive_programming/"))
    (repo / "competitive_programming" / "notes").mkdir()  # matched by no entry: ignored
    (repo / "site.toml").write_text(config)
    return repo


def test_no_file_is_perfectplays_own_site(tmp_path):
    assert load_config(tmp_path) == Config()
    assert Config().own and Config().title == "perfectplay"


def test_seed_layout_builds_with_the_archives_own_name(tmp_path):
    repo = seed_layout(tmp_path)
    out = tmp_path / "out"
    result = build_site(repo, out)
    assert result.entries == 1
    page = (out / "archive/demo/2024/A-sum-of-numbers/index.html").read_text()
    assert "<title>A. Sum of Numbers · Ada&#39;s solutions</title>" in page
    assert "> perfectplay</a>" not in page and "> Ada&#39;s solutions</a>" in page
    index = (out / "index.html").read_text()
    assert "<h1>Ada&#39;s solutions</h1>" in index
    assert '<p class="lead">Problems I solved, with proofs.</p>' in index
    assert "perfectplay archive" not in index and "archive/README.md" not in index
    assert (out / "raw" / SEED_ENTRY / "solution.tex").is_file()


def test_the_command_line_finds_an_archive_by_its_site_toml(tmp_path, monkeypatch, capsys):
    repo = seed_layout(tmp_path)
    monkeypatch.chdir(repo / "competitive_programming")
    assert site_main(["build", "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert (tmp_path / "out" / "index.html").is_file()


BAD_CONFIG = {
    'titel = "x"\n': "site.toml:1: unknown key 'titel' (known: title, description",
    "[flags]\ncpp = 3\n": "site.toml:2: 'flags.cpp' must be a string",
    '[flags]\nfortran = "-O2"\n': "site.toml:2: unknown key 'flags.fortran'",
    "time_limit = 0\n": "site.toml:1: 'time_limit' must be between 0 and 3600 seconds",
    'time_limit = "10"\n': "site.toml:1: 'time_limit' must be a number",
    'entries = ["../elsewhere/*"]\n': "'entries' pattern '../elsewhere/*' must stay inside",
    "entries = []\n": "'entries' must be a non-empty list of glob patterns",
    "title = = 1\n": "site.toml:1: malformed TOML",
}


@pytest.mark.parametrize("text", sorted(BAD_CONFIG))
def test_bad_configuration_is_one_line_and_the_output_stays(text, tmp_path, capsys, snapshot):
    repo = seed_layout(tmp_path)
    out = tmp_path / "out"
    assert site_main(["build", "--root", str(repo), "--out", str(out), "--quiet"]) == 0
    before = snapshot(out)
    (repo / "site.toml").write_text(text)
    capsys.readouterr()
    code = site_main(["build", "--root", str(repo), "--out", str(out), "--quiet"])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1, lines
    assert lines[0].startswith("perfectplay: site: site.toml"), lines[0]
    assert BAD_CONFIG[text] in lines[0], lines[0]
    assert snapshot(out) == before


def test_overlapping_patterns_are_refused(tmp_path):
    repo = seed_layout(
        tmp_path, CONFIG.replace('"competitive_programming/*/*/*"', '"*/*/*/*", "*/demo/*/*"')
    )
    # Both patterns match the entry: the same folder is one entry, not two.
    assert build_site(repo, tmp_path / "out").entries == 1
    (repo / "other" / "demo" / "2024").mkdir(parents=True)
    shutil.copytree(repo / SEED_ENTRY, repo / "other/demo/2024/A-sum-of-numbers")
    cfg = CONFIG.replace(
        '"competitive_programming/*/*/*"', '"competitive_programming/*/*/*", "other/*/*/*"'
    )
    (repo / "site.toml").write_text(cfg)
    with pytest.raises(SiteError, match="same entry id as competitive_programming/"):
        build_site(repo, tmp_path / "out")
