"""Built-in runners: an entry with ``solution.<ext>`` and no ``command``, on the fixture
archive in the seed's layout (tests/site/fixtures/own-archive: a C++ and a Python entry)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("jinja2")
pytest.importorskip("pygments")

from perfectplay.site import SiteError, build_site  # noqa: E402
from perfectplay.site.cli import main as site_main  # noqa: E402
from perfectplay.site.runners import includes, runner_for  # noqa: E402
from perfectplay.site.sandbox import unavailable  # noqa: E402

try:
    from perfectplay.site.pandoc import pandoc as _find_pandoc

    _find_pandoc()
except SiteError:  # pragma: no cover
    pytest.skip("pandoc is not installed (pip install -e '.[site]')", allow_module_level=True)

CPP = "competitive_programming/demo/2024/A-dice-sum"
PY = "competitive_programming/demo/2024/B-all-heads"
needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")


def page_of(out: Path, entry: str) -> str:
    return (out / "archive" / entry.split("/", 1)[1] / "index.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def built(tmp_path_factory, own_archive):
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    base = tmp_path_factory.mktemp("runners")
    repo = own_archive(base)
    out, cache = base / "out", base / "cache"
    build_site(repo, out, cache=cache)
    return repo, out, cache


def test_cpp_page_shows_the_solution_and_every_file_it_includes(built, grab):
    repo, out, _ = built
    page = page_of(out, CPP)
    shown = grab(page, "data-file")
    expected = [f"{CPP}/solution.tex", f"{CPP}/solution.cpp", f"{CPP}/dice.h", "lib/io.h"]
    assert list(shown) == expected
    for path in expected:
        assert shown[path] == (repo / path).read_text()
        assert (out / "raw" / path).read_bytes() == (repo / path).read_bytes()
    assert "solved by <code>g++ -O2 -std=gnu++17 -Wall solution.cpp</code>" in page
    text = " ".join(page.split())
    assert "the code from the solution file and the files of the tree it includes" in text
    assert "and every file of the tree it includes, shown exactly" in text
    assert "package files" not in text


def test_cpp_outputs_are_the_compiled_programs(built, grab, tmp_path):
    repo, out, _ = built
    exe = tmp_path / "a.out"
    subprocess.run(["g++", "-O2", "-o", str(exe), str(repo / CPP / "solution.cpp")], check=True)
    outputs = grab(page_of(out, CPP), "data-output")
    assert sorted(outputs) == ["1", "2"]
    for name, text in outputs.items():
        stdin = (repo / CPP / "samples" / f"{name}.in").read_bytes()
        real = subprocess.run([str(exe)], input=stdin, capture_output=True, check=True).stdout
        assert text == real.decode()
    assert outputs["2"] == "14.000000\n"


def test_python_entry_runs_under_the_builds_interpreter(built, grab):
    repo, out, _ = built
    page = page_of(out, PY)
    assert "solved by <code>python3 solution.py</code>" in page
    assert list(grab(page, "data-file")) == [f"{PY}/solution.tex", f"{PY}/solution.py"]
    for name, text in grab(page, "data-output").items():
        stdin = (repo / PY / "samples" / f"{name}.in").read_bytes()
        real = subprocess.run(
            [sys.executable, str(repo / PY / "solution.py")], input=stdin, capture_output=True
        ).stdout
        assert text == real.decode()


def test_compiled_once_into_the_cache_and_reused(built, tmp_path, snapshot):
    repo, out, cache = built
    (program,) = (cache / "bin").iterdir()
    stamp = (program / ".done").stat().st_mtime_ns
    build_site(repo, tmp_path / "again", cache=cache)
    assert [p.name for p in (cache / "bin").iterdir()] == [program.name]
    assert (program / ".done").stat().st_mtime_ns == stamp  # not compiled again
    assert snapshot(tmp_path / "again") == snapshot(out)
    assert not any(p.name.startswith(".compiling") for p in (cache / "bin").iterdir())
    assert not list(repo.rglob("*.o")) and not (repo / CPP / "solution").exists()


@needs_gxx
def test_a_changed_header_is_a_new_program(tmp_path, grab, own_archive):
    repo = own_archive(tmp_path)
    cache = tmp_path / "cache"
    build_site(repo, tmp_path / "out", cache=cache)
    header = repo / CPP / "dice.h"
    header.write_text(header.read_text().replace("21.0 / 6.0", "22.0 / 6.0"))
    with pytest.raises(SiteError, match="1.ans: the output of .* differs"):
        build_site(repo, tmp_path / "out", cache=cache)
    assert len(list((cache / "bin").iterdir())) == 2


@needs_gxx
def test_includes_are_found_transitively(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "lib").mkdir()
    (tmp_path / "a" / "b" / "s.cpp").write_text(
        '#include <vector>\n#include "x.h"\n  #  include "../../lib/y.h"\n'
    )
    (tmp_path / "a" / "b" / "x.h").write_text('#pragma once\n#include "../../lib/y.h"\n')
    (tmp_path / "lib" / "y.h").write_text('#pragma once\n#include "z.h"\n')
    (tmp_path / "lib" / "z.h").write_text("// last\n")
    found = includes(tmp_path, "a/b/s.cpp", "e")
    assert found.tree == ["a/b/x.h", "lib/y.h", "lib/z.h"]
    assert any(p.endswith("/vector") for p in found.system)  # system headers: in the key


@needs_gxx
def test_includes_are_what_the_preprocessor_reads(tmp_path):
    """A regular expression misses these; the compiler's own report does not."""
    (tmp_path / "h").mkdir()
    for name in ("macro", "comment", "continued", "digraph"):
        (tmp_path / "h" / f"{name}.h").write_text(f"// {name}\n")
    (tmp_path / "s.cpp").write_text(
        "#define STR(x) #x\n#define HEADER(x) STR(h/x.h)\n#include HEADER(macro)\n"
        '/* #include "h/nothing.h" */ # /* a comment */ include "h/comment.h"\n'
        '#\\\ninclude "h/continued.h"\n'
        '%:include "h/digraph.h"\n'
    )
    assert includes(tmp_path, "s.cpp", "e").tree == [
        "h/macro.h",
        "h/comment.h",
        "h/continued.h",
        "h/digraph.h",
    ]


def test_runner_by_extension():
    assert [
        runner_for(f"solution.{e}").language for e in ("c", "cpp", "py", "java", "rs", "go")
    ] == ["c", "cpp", "python", "java", "rust", "go"]
    assert runner_for("solution.f90") is None


OTHER_LANGUAGES = {
    "c": (
        "gcc",
        '#include <stdio.h>\nint main(void){long n;scanf("%ld",&n);'
        'printf("%.6f\\n",3.5*n);return 0;}\n',
    ),
    "java": (
        "javac",
        "import java.util.Scanner;\npublic class solution {\n"
        "  public static void main(String[] a) {\n"
        "    long n = new Scanner(System.in).nextLong();\n"
        '    System.out.printf("%.6f%n", 3.5 * n);\n  }\n}\n',
    ),
    "rs": (
        "rustc",
        "use std::io::Read;\nfn main() {\n  let mut s = String::new();\n"
        "  std::io::stdin().read_to_string(&mut s).unwrap();\n"
        "  let n: f64 = s.trim().parse().unwrap();\n"
        '  println!("{:.6}", 3.5 * n);\n}\n',
    ),
    "go": (
        "go",
        'package main\nimport "fmt"\nfunc main() {\n  var n float64\n'
        '  fmt.Scan(&n)\n  fmt.Printf("%.6f\\n", 3.5*n)\n}\n',
    ),
}


@pytest.mark.parametrize("ext", sorted(OTHER_LANGUAGES))
def test_other_languages_where_installed(ext, tmp_path, grab, own_archive):
    tool, source = OTHER_LANGUAGES[ext]
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")
    repo = own_archive(tmp_path)
    (repo / CPP / "solution.cpp").unlink()
    (repo / CPP / f"solution.{ext}").write_text(source)
    out = tmp_path / "out"
    build_site(repo, out, cache=tmp_path / "cache")
    page = page_of(out, CPP)
    assert grab(page, "data-output") == {"1": "3.500000\n", "2": "14.000000\n"}
    assert list(grab(page, "data-file"))[1:] == [f"{CPP}/solution.{ext}"]


def _write(path: Path, text: str) -> None:
    path.write_text(text)


BAD = {
    "no runner for the language": (
        lambda r: (r / CPP / "solution.cpp").rename(r / CPP / "solution.f90"),
        f"{CPP}/solution.f90: no built-in runner for '.f90' files",
    ),
    "several solution files": (
        lambda r: _write(r / CPP / "solution.py", "print(1)\n"),
        f"{CPP}/solution.cpp: several solution files (solution.cpp, solution.py)",
    ),
    "include that leaves the tree": (
        lambda r: (
            _write(r.parent / "secret.h", "// outside\n"),
            _write(r / CPP / "dice.h", '#include "../../../../../secret.h"\n'),
        ),
        # The sandbox shows the compiler the tree and the system, nothing beside them.
        f"{CPP}/dice.h:1: cannot preprocess: ../../../../../secret.h: No such file",
    ),
    "absolute include": (
        lambda r: _write(r / CPP / "dice.h", '#include "/etc/hostname"\n'),
        f"{CPP}/dice.h:1: cannot preprocess: /etc/hostname: No such file",
    ),
    "compile error": (
        lambda r: _write(r / CPP / "solution.cpp", "int main() { return undefined_name; }\n"),
        f"{CPP}/solution.cpp: does not compile (g++): ",
    ),
    "no command and no solution file": (
        lambda r: (r / PY / "solution.py").unlink(),
        "meta.toml: missing key 'command' (or 'package', naming a gallery problem, or a "
        "solution.<ext> file",
    ),
}


@needs_gxx
@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_solution_is_one_line_and_the_output_stays(
    case, tmp_path, capsys, snapshot, own_archive
):
    if "include" in case and unavailable() is not None:
        pytest.skip(f"the compiler sees the whole machine without a sandbox: {unavailable()}")
    repo = own_archive(tmp_path)
    out, cache = tmp_path / "out", tmp_path / "cache"
    argv = ["build", "--root", str(repo), "--out", str(out), "--cache", str(cache), "--quiet"]
    argv.append("--fail-fast")  # without it, the entry is shown failing and the build exits 1
    assert site_main(argv) == 0
    before = snapshot(out)
    breaks, expected = BAD[case]
    breaks(repo)
    capsys.readouterr()
    code = site_main(argv)
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1, lines
    assert lines[0].startswith("perfectplay: site: demo/2024/"), lines[0]
    assert expected in lines[0], lines[0]
    assert snapshot(out) == before


def test_missing_compiler_names_the_entry_and_the_tool(tmp_path, monkeypatch, own_archive):
    repo = own_archive(tmp_path)
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(SiteError) as exc:
        build_site(repo, tmp_path / "out", cache=tmp_path / "cache")
    assert str(exc.value) == (
        f"site: demo/2024/A-dice-sum: {CPP}/solution.cpp: the C++ runner needs g++, which is "
        "not installed (or give a 'command' in meta.toml)"
    )


@needs_gxx
def test_a_cache_that_cannot_be_written_is_one_line(tmp_path, capsys, own_archive):
    repo = own_archive(tmp_path)
    blocker = tmp_path / "a-file"
    blocker.write_text("x\n")
    code = site_main(
        [
            "build",
            "--root",
            str(repo),
            "--out",
            str(tmp_path / "out"),
            "--cache",
            str(blocker / "cache"),
            "--quiet",
        ]
    )
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1, lines
    assert f"{blocker / 'cache'}: cannot write the cache" in lines[0]
    assert not (tmp_path / "out").exists()
