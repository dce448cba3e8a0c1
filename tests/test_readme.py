"""The README and docs/ show what ptxlint really prints: the rule table, the examples, the links."""

import re
import shutil

import pytest

from support import REPO, SAMPLES, run_cli


def test_readme_rule_table_matches_the_rule_docs():
    readme = (REPO / "README.md").read_text()
    table = re.search(r"<!-- rules-table:start -->\n(.*?)<!-- rules-table:end -->", readme, re.S).group(1)
    proc = run_cli("rule", "--table")
    assert proc.returncode == 0
    assert table.strip() == proc.stdout.strip(), "regenerate with `ptxlint rule --table`"


def test_readme_starts_with_install_and_test_commands():
    lines = (REPO / "README.md").read_text().splitlines()
    block = lines[lines.index("```bash") + 1: lines.index("```bash") + 3]
    assert "pip install ." in block[0] and "ptxlint samples/" in block[0]
    assert "pytest" in block[1]


def test_rule_docs_render_as_markdown_without_stray_indentation():
    proc = run_cli("rule", "--all")
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    headings = [l for l in lines if l.startswith("# ")]
    assert len(headings) >= 14 and all(l.split()[1][-3:].isdigit() for l in headings)
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead"):
        assert lines.count(section) == len(headings)
    assert not any(l.lstrip().startswith(("#", "```")) and l != l.lstrip() for l in lines)


def _after(readme: str, marker: str, fence: str) -> str:
    """The body of the first ``` block of kind `fence` after `marker` in the README."""
    start = readme.index(f"```{fence}\n", readme.index(marker)) + len(fence) + 4
    return readme[start:readme.index("```", start)]


def test_accesses_doc_example_is_the_current_output():
    block = _after((REPO / "docs" / "commands.md").read_text(), "`ptxlint accesses` shows", "text")
    command, expected = block.split("\n", 1)
    assert command.startswith("$ ptxlint accesses ")
    proc = run_cli(*command.split()[2:], cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH: the example is a .cu file")
def test_output_doc_text_verbose_and_github_output_are_what_ptxlint_prints(tmp_path):
    # docs/output.md holds the worked example of the output (default, -v, GitHub); the README shows or links it
    doc = (REPO / "docs" / "output.md").read_text()
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "transpose.cu").write_text(_after(doc, "## What you see", "cuda"))
    command, expected = _after(doc, "## What you see", "text").split("\n", 1)
    assert command == "$ ptxlint check --block 32x32 kernels/transpose.cu"
    text = run_cli("check", "--no-cache", "--isolated", *command.split()[3:], cwd=tmp_path)
    assert text.returncode == 1 and text.stdout == expected
    command, expected = _after(doc, "every note: the rest of the evidence", "text").split("\n", 1)
    assert command == "$ ptxlint check -v --block 32x32 kernels/transpose.cu"
    verbose = run_cli("check", "--no-cache", "--isolated", *command.split()[3:], cwd=tmp_path)
    assert verbose.stdout == expected
    annotation = _after(doc, "The same finding as a GitHub annotation", "text")
    github = run_cli("check", "--no-cache", "--isolated", "--format", "github", *command.split()[4:], cwd=tmp_path)
    assert github.stdout == annotation
    assert annotation.rstrip("\n").endswith(text.stdout.split("= fix: ")[1].split("\n")[0])


def _sass_tools():
    from ptxlint.frontend.sass.tools import tools_available

    return tools_available()


@pytest.mark.skipif(not _sass_tools(), reason="ptxas/nvdisasm not found: the README's examples assemble PTX")
@pytest.mark.parametrize("marker", ["branches), counted on the PTX", "comes from at the SASS width"])
def test_kernels_and_sass_doc_examples_are_the_current_output(marker):
    block = _after((REPO / "docs" / "commands.md").read_text(), marker, "text")
    command, expected = block.split("\n", 1)
    assert command.startswith("$ ptxlint ")
    proc = run_cli(*command.split()[2:], cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    if expected.endswith("...\n"):  # a shortened listing: its first lines
        expected = expected[:-len("...\n")]
        assert proc.stdout.startswith(expected)
    else:
        assert proc.stdout == expected


def test_readme_and_docs_links_point_at_files_and_headings_that_exist():
    """Every relative link of the README and docs/ names a file that exists, and every #anchor a heading."""
    def anchors(text):
        return {re.sub(r"[^a-z0-9 _-]", "", h.strip("# ").lower()).replace(" ", "-")
                for h in text.splitlines() if h.startswith("#")}
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    for page in pages:
        text = page.read_text()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if target.startswith(("http://", "https://")):
                continue
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            assert linked.exists(), f"{page.name}: link to missing {target}"
            if anchor and linked.suffix == ".md":
                assert anchor in anchors(linked.read_text()), f"{page.name}: no heading for #{anchor}"


def test_pre_commit_example_names_the_release_tag_of_this_version():
    from ptxlint import __version__

    readme = (REPO / "README.md").read_text()
    revs = re.findall(r"^\s*rev: (\S+)", readme, re.M)
    assert revs == [f"v{__version__}"]


def test_readme_shows_the_output_example_that_docs_output_checks():
    """The README's example output is docs/output.md's, which the test above runs."""
    readme, doc = (REPO / "README.md").read_text(), (REPO / "docs" / "output.md").read_text()
    assert _after(readme, "### What you see", "text") == _after(doc, "## What you see", "text")
    assert _after(readme, "The same finding as a GitHub annotation", "text") == \
        _after(doc, "The same finding as a GitHub annotation", "text")
