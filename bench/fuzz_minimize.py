"""Shrink a PTX input that makes ptxlint fail to the fewest lines that still fail the same way.

    PYTHONPATH=<ptxlint src to reproduce with> python bench/fuzz_minimize.py INPUT.ptx OUTPUT.ptx [--time-limit S]

The failure is the signature `ptx_fuzz.failure_signature` gives the input (exception type and
innermost ptxlint frame, or "hang"); every candidate must give the same one. Run it against the
ptxlint that failed (e.g. an older checkout's src/) to turn a crash into a regression input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import ptx_fuzz  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--time-limit", type=float, default=10.0)
    args = ap.parse_args()
    text = Path(args.input).read_text()
    signature = ptx_fuzz.failure_signature(text, args.time_limit)
    if signature is None:
        print("does not fail here")
        return 1
    print(f"{len(text.splitlines())} lines fail with: {signature}")
    small = ptx_fuzz.minimize(text, lambda t: ptx_fuzz.failure_signature(t, args.time_limit) == signature)
    Path(args.output).write_text(small if small.endswith("\n") else small + "\n")
    print(f"{len(small.splitlines())} lines: {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
