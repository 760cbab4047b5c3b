"""Issue 24, the smaller items: each a one-line message and its exit status. A file the
command was asked to write that cannot be written exits 1 (as standard output does); bad
input 2; a nested JSON table header and ``entries = ["."]`` in site.toml are one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from perfectplay import cli
from perfectplay.errors import InputError, WriteError

SRC = str(Path(__file__).resolve().parent.parent / "src")


def one_line(err: str) -> bool:
    return err.startswith("perfectplay") and err.count("\n") == 1 and "Traceback" not in err


def test_a_save_that_cannot_be_written_exits_1(capsys, tmp_path):
    from perfectplay.yahtzee.ruleset import Category, Rules

    empty = tmp_path / "empty.txt"
    empty.write_text("")
    rules_file = tmp_path / "tiny.py"
    rules_file.write_text(
        "from perfectplay.yahtzee.ruleset import Category, Rules\n"
        "TINY = Rules('tiny', (Category('chance', sum),), dice=1, faces=2, rolls=1,"
        " upper_threshold=0)\n"
    )
    assert Rules("t", (Category("c", sum),), dice=1, faces=2, rolls=1, upper_threshold=0)
    target = tmp_path / "no" / "such" / "folder" / "t.table"
    code = cli.main(
        [
            "yahtzee",
            str(empty),
            "-q",
            "--no-cache",
            "--rules",
            f"{rules_file}:TINY",
            "--save",
            str(target),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 1 and one_line(err), err
    assert err.startswith(f"perfectplay: --save cannot write {target}: No such file")


def test_an_export_that_cannot_be_written_exits_1(capsys, tmp_path):
    target = tmp_path / "missing" / "t.npz"
    code = cli.main(
        ["solve", "perfectplay.examples.pig:Piglet", "-p", "goal=3", "-q", "--export", str(target)]
    )
    _, err = capsys.readouterr()
    assert code == 1 and one_line(err) and f"cannot write {target}" in err, err
    # a folder given for the file: 1 as well (as yahtzee --save), before anything is solved
    code = cli.main(
        [
            "solve",
            "perfectplay.examples.pig:Piglet",
            "-p",
            "goal=3",
            "-q",
            "--export",
            str(tmp_path),
        ]
    )
    out, err = capsys.readouterr()
    # a file asked for that cannot be written: 1, refused before the solve printed anything
    assert code == 1 and "is a directory" in err and out == ""


def test_a_plot_that_cannot_be_written_exits_1(tmp_path):
    pytest.importorskip("matplotlib")
    import numpy as np

    from perfectplay.yahtzee.distribution import ScoreDistribution, plot

    dist = ScoreDistribution("demo", np.array([0.0, 0.5, 0.25, 0.25]))
    with pytest.raises(WriteError, match="cannot write .*/nowhere/d.png"):
        plot(dist, tmp_path / "nowhere" / "d.png")
    plot(dist, tmp_path / "d.png")
    assert (tmp_path / "d.png").read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.png"]  # no temporary left


def test_write_errors_are_input_errors_for_old_handlers():
    # code that refused a bad path by catching InputError still does
    assert issubclass(WriteError, InputError)


def test_a_nested_json_table_header_is_one_line(tmp_path):
    from perfectplay.yahtzee.solution import _MAGIC

    path = tmp_path / "nested.table"
    path.write_bytes(_MAGIC + b"[" * 30000 + b"]" * 30000 + b"\n")
    advise = ["yahtzee", "advise", "--load", str(path), "dice 12345; rolls 0"]
    done = subprocess.run(
        [sys.executable, "-m", "perfectplay", *advise],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 2 and one_line(done.stderr), done.stderr
    assert done.stderr == f"perfectplay: --load {path}: corrupt header\n"


@pytest.mark.parametrize("pattern", [".", "./", "a/.."])
def test_site_entries_naming_the_root_are_one_line(tmp_path, pattern):
    from perfectplay.site.config import load_config
    from perfectplay.site.errors import SiteError

    (tmp_path / "site.toml").write_text(f'title = "t"\nentries = ["{pattern}"]\n')
    with pytest.raises(SiteError) as info:
        load_config(tmp_path)
    assert "\n" not in str(info.value) and "entries" in str(info.value)
