"""README.md and docs/*.md stay usable: every relative link (files and #anchors) resolves,
and every command shown in a fenced `sh` block of the README exists (its `--help`, or
`make -n` for a make target, succeeds)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^(```|~~~)")
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
VENV_BIN = Path(sys.executable).parent
# A subcommand is a plain word after the program (not an option, a path or a value).
SUBCOMMAND = re.compile(r"^[a-z][a-z0-9-]*$")


def _outside_fences(text: str) -> list[str]:
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line.lstrip()):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def _prose(text: str) -> str:
    """The page without fenced blocks and inline code, where links are not links."""
    return "\n".join(re.sub(r"`[^`]*`", "", line) for line in _outside_fences(text))


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation removed
    (word characters, spaces and hyphens stay), spaces become hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").replace("*", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    anchors = set()
    for line in _outside_fences(path.read_text()):
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        slug = _slug(match.group(1))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def _relative_links(page: Path) -> list[str]:
    return [target for target in LINK.findall(_prose(page.read_text()))
            if not re.match(r"^[a-z][a-z0-9+.-]*:", target)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_resolve(page: Path) -> None:
    for target in _relative_links(page):
        path_part, _, anchor = target.partition("#")
        dest = (page.parent / path_part).resolve() if path_part else page
        assert dest.exists(), f"{page.name}: link to {target}: no such file"
        if anchor and dest.suffix == ".md":
            assert anchor in _anchors(dest), \
                f"{page.name}: link to {target}: no heading with that anchor in {dest.name}"


def test_pages_are_linked_from_the_readme() -> None:
    linked = {(REPO / t.partition("#")[0]).resolve()
              for t in _relative_links(REPO / "README.md")}
    unlinked = [p.name for p in PAGES[1:] if p.resolve() not in linked]
    assert not unlinked, f"docs pages missing from README's table: {unlinked}"


def _readme_commands() -> list[list[str]]:
    """The commands of the README's `sh` blocks: continuations joined, comments dropped."""
    commands, block, pending = [], False, ""
    for line in (REPO / "README.md").read_text().splitlines():
        if FENCE.match(line):
            block = line.strip() in ("```sh", "~~~sh") if not block else False
            continue
        if not block:
            continue
        pending += line.rstrip().removesuffix("\\") + " "
        if line.rstrip().endswith("\\"):
            continue
        words = shlex.split(pending, comments=True)
        pending = ""
        if words:
            commands.append(words)
    return commands


def _help_command(words: list[str]) -> list[str]:
    """The command that proves `words` exists: its program's (and subcommand's) help."""
    program, args = words[0], words[1:]
    if program == "make":
        return ["make", "-n", "-C", str(REPO), *args[:1]]
    if program.endswith("python") or program.startswith("python"):
        assert args[:1] == ["-m"], f"README runs a python without -m: {words}"
        head, args = [sys.executable, "-m", args[1]], args[2:]
    elif program.startswith("scripts/"):
        script = str(REPO / program)
        head = [sys.executable, script] if program.endswith(".py") else [script]
    elif (VENV_BIN / program).exists():
        head = [str(VENV_BIN / program)]
    else:
        pytest.fail(f"README shows a command this test cannot map to --help: {words}")
    sub = args[:1] if args and SUBCOMMAND.match(args[0]) else []
    return [*head, *sub, "--help"]


def test_readme_shows_make_test_verbatim() -> None:
    # .ci/run ends with `make test`; README must show the same command.
    ci_last = (REPO / ".ci" / "run").read_text().strip().splitlines()[-1].strip()
    assert ["make", "test"] == ci_last.split()
    assert ["make", "test"] in _readme_commands()


@pytest.mark.parametrize("words", _readme_commands(), ids=" ".join)
def test_readme_commands_exist(words: list[str]) -> None:
    command = _help_command(words)
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{' '.join(command)}: exit {done.returncode}\n{done.stderr}"
