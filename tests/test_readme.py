"""The README's rule table is the one the rule docs generate."""

import re

from support import REPO, run_cli


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
