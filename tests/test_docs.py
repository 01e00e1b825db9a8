"""The documentation shows what exists: README.md, docs/ and man/xmpacc.1.

Every fenced C block of README.md and docs/**/*.md is a whole program, compiled here by
the installed xmpacc (``xmpacc -c``: compiling, not running, on the host backend), unless
its info string says otherwise:

    ```c fragment                    part of a program: not compiled
    ```c from samples/dir/file.c     an excerpt of a file (path from the repository root):
                                     its lines appear there in order, '...' standing for
                                     lines left out; the file itself is compiled

A MyST ``literalinclude`` of a C file compiles that file too.  The ``make demo`` output
shown in the README and the guide is the Makefile's two commands and what the serial
Laplace program prints, and every option of ``xmpacc --help`` is in docs/xmpacc.md and in
the manual page.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import REPO, run_xmpacc, serial_output

PAGES = [REPO / "README.md", *sorted(p for p in (REPO / "docs").rglob("*.md") if "_build" not in p.parts)]
OPTIONS_PAGE = REPO / "docs" / "xmpacc.md"
MAN_PAGE = REPO / "man" / "xmpacc.1"
README_MAX_LINES = 200


@dataclass(frozen=True)
class Block:
    page: Path
    line: int          # 1-based line of the opening fence
    info: str          # the fence's info string: 'c', 'c fragment', '{literalinclude} path', ...
    text: str

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"

    @property
    def words(self) -> list[str]:
        return self.info.split()


_OPEN = re.compile(r"^(`{3,}|~{3,})(.*)$")


def fenced_blocks(page: Path) -> list[Block]:
    """The fenced blocks of a Markdown page, outermost ones only, in order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        m = _OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        fence = m.group(1)
        close = re.compile(rf"^{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        blocks.append(Block(page, i + 1, m.group(2).strip(), "\n".join(lines[i + 1:j]) + "\n"))
        i = j + 1
    return blocks


ALL_BLOCKS = [b for page in PAGES for b in fenced_blocks(page)]
C_BLOCKS = [b for b in ALL_BLOCKS if b.words[:1] == ["c"]]
PROGRAMS = [b for b in C_BLOCKS if b.words == ["c"]]
EXCERPTS = [b for b in C_BLOCKS if b.words[1:2] == ["from"]]


def _included_c_files() -> list[Path]:
    """The C files the docs show: excerpts' files and literalincludes."""
    files = {REPO / b.words[2] for b in EXCERPTS if len(b.words) == 3}
    for b in ALL_BLOCKS:
        if b.words[:1] == ["{literalinclude}"] and len(b.words) == 2 and b.words[1].endswith(".c"):
            files.add((b.page.parent / b.words[1]).resolve())
    return sorted(files)


INCLUDED = _included_c_files()


def test_docs_show_programs() -> None:
    """The extraction finds what the pages hold (a broken parser would pass vacuously)."""
    assert len(PROGRAMS) >= 5 and len(EXCERPTS) >= 4 and len(INCLUDED) >= 4


@pytest.mark.parametrize("block", C_BLOCKS, ids=lambda b: b.id)
def test_c_block_is_marked(block: Block) -> None:
    words = block.words
    ok = words in (["c"], ["c", "fragment"]) or (len(words) == 3 and words[1] == "from")
    assert ok, f"{block.id}: '```{block.info}': a C block is '```c' (a whole program), " \
               "'```c fragment' or '```c from samples/...'"


@pytest.mark.parametrize("block", PROGRAMS, ids=lambda b: b.id)
def test_program_compiles(block: Block, tmp_path: Path) -> None:
    src = tmp_path / f"{block.page.stem}_{block.line}.c"
    src.write_text(block.text)
    r = run_xmpacc("-c", str(src), "-o", str(tmp_path / "prog.o"))
    assert r.returncode == 0 and not r.stderr, f"{block.id} does not compile cleanly:\n{r.stderr}"


@pytest.mark.parametrize("block", EXCERPTS, ids=lambda b: b.id)
def test_excerpt_is_in_its_file(block: Block) -> None:
    path = REPO / block.words[2]
    assert path.is_file(), f"{block.id}: no file {block.words[2]}"
    source = [line.strip() for line in path.read_text().splitlines()]
    at = 0
    for line in block.text.splitlines():
        want = line.strip()
        if not want or want == "...":
            continue
        try:
            at = source.index(want, at) + 1
        except ValueError:
            pytest.fail(f"{block.id}: '{want}' is not in {block.words[2]} (after line {at})")


@pytest.mark.parametrize("path", INCLUDED, ids=lambda p: str(p.relative_to(REPO)))
def test_shown_file_compiles(path: Path, tmp_path: Path) -> None:
    r = run_xmpacc("-c", str(path), "-o", str(tmp_path / "prog.o"))
    assert r.returncode == 0, f"{path} does not compile:\n{r.stderr}"


def _demo_recipe() -> list[str]:
    """The commands of the Makefile's demo target, as make echoes them."""
    lines = (REPO / "Makefile").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("demo:"))
    recipe = []
    for line in lines[start + 1:]:
        if not line.startswith("\t"):
            break
        recipe.append(line[1:].replace("$(BIN)", ".venv/bin"))
    return recipe


DEMO_BLOCKS = [b for b in ALL_BLOCKS if b.text.startswith("$ make demo\n")]


@pytest.mark.parametrize("block", DEMO_BLOCKS, ids=lambda b: b.id)
def test_make_demo_output_as_shown(block: Block, tmp_path: Path) -> None:
    shown = block.text.splitlines()[1:]
    recipe = _demo_recipe()
    assert len(recipe) == 2 and not any(c.startswith("@") for c in recipe)
    assert shown[:2] == recipe
    # what the demo prints is the serial program's verification value
    expected = serial_output(REPO / "samples" / "laplace" / "laplace_serial.c", tmp_path)
    assert shown[2:] == expected.splitlines()


def test_readme_is_the_front_door() -> None:
    assert len((REPO / "README.md").read_text().splitlines()) <= README_MAX_LINES
    assert any(b.page.name == "README.md" for b in DEMO_BLOCKS)


def test_readme_links_exist() -> None:
    """GitHub renders the README's relative links; Sphinx checks the guide's own."""
    text = (REPO / "README.md").read_text()
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" not in target:
            assert (REPO / target).exists(), f"README.md links to a missing {target}"


_NAMED_PATH = re.compile(r"`((?:xmpacc|runtime|templates|bench|tests|samples|docs|man)/[^`\s]*)`")


def _exists(named: str) -> bool:
    """A path, or a module's attribute written after it (`runtime/acc_locations.restart`)."""
    if any(c in named for c in "*<|") or "_build" in named:
        return True   # a pattern, not a file
    module = re.sub(r"\.\w+$", ".py", named)
    return (REPO / named).exists() or (REPO / module).exists()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_named_files_exist(page: Path) -> None:
    """A file or folder the text names in code (`xmpacc/passes/loops/loops.py`,
    `runtime/reflect.py`, `samples/build/make/`) is there: a module renamed or moved
    fails here until the docs follow."""
    missing = [p for p in _NAMED_PATH.findall(page.read_text()) if not _exists(p)]
    assert not missing, f"{page.relative_to(REPO)} names files that do not exist: {missing}"


def _help() -> str:
    r = run_xmpacc("--help")
    assert r.returncode == 0
    return r.stdout


_OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w:-]*|@FILE)")


def help_items() -> list[str]:
    """Every option, stage and environment variable that ``xmpacc --help`` names."""
    text = _help()
    options = text.split("\noptions:\n", 1)[1].split("\nOther options", 1)[0]
    items = [o.rstrip(":-") for o in _OPTION.findall(options)]
    stages = re.search(r"one of\s+([\w, ]+)\n", options)
    assert stages, "the --stop-after line of the help lists the stages"
    items += [s.strip() for s in stages.group(1).split(",")]
    items += re.findall(r"XMPACC_\w+", text)
    return sorted(set(items))


def _mentions(text: str, item: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(item)}(?![\w-])", text) is not None


def _man_text() -> str:
    """The manual page's words: troff escapes of hyphens and fonts removed."""
    text = MAN_PAGE.read_text().replace("\\-", "-")
    return re.sub(r"\\f[BIRP]", "", text)


def test_help_is_read() -> None:
    items = help_items()
    for expected in ("-o", "-c", "--stop-after", "--showme:compile", "@FILE", "emit", "XMPACC_CHECK"):
        assert expected in items


@pytest.mark.parametrize("page", [OPTIONS_PAGE, MAN_PAGE], ids=lambda p: p.name)
def test_every_help_option_is_documented(page: Path) -> None:
    text = _man_text() if page == MAN_PAGE else page.read_text()
    missing = [item for item in help_items() if not _mentions(text, item)]
    assert not missing, f"{page.relative_to(REPO)} does not mention {missing}"


@pytest.mark.skipif(shutil.which("groff") is None, reason="no groff")
def test_man_page_renders_without_warnings() -> None:
    r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", str(MAN_PAGE)],
                       capture_output=True, text=True)
    assert r.returncode == 0 and not r.stderr, r.stderr
