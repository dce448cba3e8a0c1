"""Bad input: one clear message with file:line:column, exit status 2, no traceback, and the other
files of the run still checked."""

import json

import pytest

from support import SAMPLES, run_cli

GOOD = SAMPLES / "transpose.sm_90.ptx"

HEADER = ".version 8.8\n.target sm_90\n.address_size 64\n"


def check_json(*paths):
    proc = run_cli("check", "--format", "json", "--no-cache", *paths)
    assert "Traceback" not in proc.stderr
    return proc, json.loads(proc.stdout)


def only_error(doc, path):
    errors = [e for e in doc["errors"] if e["path"] == str(path)]
    assert len(errors) == 1, doc["errors"]
    return errors[0]


CASES = {
    "missing_semicolon": (HEADER + ".visible .entry k()\n{\n\tmov.u32 %r1, %tid.x\n\tret;\n}\n", 7, "syntax error"),
    "unknown_token": (HEADER + ".visible .entry k()\n{\n\tmov.u32 %r1, #5;\n}\n", 6, "unexpected character '#'"),
    "unclosed_body": (HEADER + ".visible .entry k()\n{\n\tret;\n", 6, "unexpected end of file"),
    "bad_address": (HEADER + ".visible .entry k()\n{\n\tld.shared.u32 %r1, [%r2+];\n}\n", 6, "integer offset"),
    "bad_loc": (HEADER + ".visible .entry k()\n{\n\t.loc 1 x 2\n\tret;\n}\n", 6, "malformed .loc"),
    "no_version": (".target sm_90\n.address_size 64\n", 1, "no `.version`"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_malformed_ptx_reports_path_line_and_what_was_expected(tmp_path, name):
    text, line, words = CASES[name]
    bad = tmp_path / f"{name}.ptx"
    bad.write_text(text)
    proc, doc = check_json(bad, GOOD)
    assert proc.returncode == 2
    error = only_error(doc, bad)
    assert error["line"] == line and words in error["message"]
    assert any(d["path"].endswith("transpose.cu") for d in doc["diagnostics"])  # the good file still checked


def test_syntax_error_names_the_expected_tokens(tmp_path):
    bad = tmp_path / "k.ptx"
    bad.write_text(HEADER + ".visible .entry k(\n.param .u64 p\n{\n\tret;\n}\n")
    proc = run_cli("check", "--no-cache", bad)
    assert proc.returncode == 2
    first = proc.stdout.splitlines()[0] + proc.stderr
    assert f"{bad}:6:1: syntax error: unexpected '{{" in first and "expected ')'" in first


def test_empty_binary_and_non_utf8_files(tmp_path):
    empty = tmp_path / "empty.ptx"
    empty.write_text("   \n")
    binary = tmp_path / "binary.ptx"
    binary.write_bytes(b"\x7fELF\x00\x01\x02" * 10)
    latin = tmp_path / "latin.ptx"
    latin.write_bytes((HEADER + "// caf\xe9\n").encode("latin-1"))
    proc, doc = check_json(empty, binary, latin, GOOD)
    assert proc.returncode == 2
    assert "empty file" in only_error(doc, empty)["message"]
    assert "binary file" in only_error(doc, binary)["message"]
    err = only_error(doc, latin)
    assert "not UTF-8" in err["message"] and "0xe9" in err["message"] and (err["line"], err["column"]) == (4, 7)
    assert doc["diagnostics"]


def test_missing_path_and_directory_without_ptx(tmp_path):
    (tmp_path / "notes.txt").write_text("nothing to lint")
    proc, doc = check_json(tmp_path / "nope.ptx", tmp_path, GOOD)
    assert proc.returncode == 2
    assert "no such file" in only_error(doc, tmp_path / "nope.ptx")["message"]
    assert "no .ptx or .cu files" in only_error(doc, tmp_path)["message"]
    assert doc["diagnostics"]


def test_unknown_rule_code_and_bad_block_are_usage_errors():
    proc = run_cli("check", "--select", "NOPE123", GOOD)
    assert proc.returncode == 2 and "NOPE123" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_cli("check", "--block", "32xfoo", GOOD)
    assert proc.returncode == 2 and "expected [KERNEL=]XxYxZ" in proc.stderr


def test_clean_file_exits_0_and_findings_exit_1(tmp_path):
    clean = tmp_path / "clean.ptx"
    clean.write_text(HEADER + ".visible .entry k()\n{\n\tret;\n}\n")
    assert run_cli("check", "--no-cache", clean).returncode == 0
    assert run_cli("check", "--no-cache", "--block", "32x8", GOOD).returncode == 1
