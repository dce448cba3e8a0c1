#!/usr/bin/env python3
"""Rebuild EXPECTED.json from the `// EXPECT(CODE[@kernel][*N]): why` markers in the samples.

`*N`: the line has N findings of that code (a load and a store of one statement are two).

The marker sits on the .cu line of the offending instruction.  The kernel is the enclosing
__global__ function (namespace-qualified; `@kernel` names one instantiation of a template);
"block" comes from the `// ptxlint-block: XxY[xZ]` comment written before that kernel;
"entry" is the mangled .entry name found in <name>.sm_90.ptx (run regenerate.sh first).
Every .cu file appears, with [] when the sample is meant to be clean.
"""
import glob, json, os, re, subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
MARK = re.compile(r"//\s*EXPECT\((\w+)(?:@([^)*]+))?(?:\*(\d+))?\):\s*(.*)$")
BLOCK = re.compile(r"//\s*ptxlint-block:\s*(\d+)(?:x(\d+))?(?:x(\d+))?")
# __global__ void [__launch_bounds__(..) | __maxnreg__(..) | __cluster_dims__(..)]* name(
GLOBAL = re.compile(r"__global__\s+(?:void\s+)?(?:__(?:cluster_dims|launch_bounds|maxnreg)__\([^)]*\)\s+)*(?:void\s+)?(\w+)\s*\(")
NS = re.compile(r"^\s*namespace\s+(\w+)\s*\{")


def entries(ptx):
    if not os.path.exists(ptx):
        return {}
    names = re.findall(r"\.entry\s+([\w$]+)\s*\(", open(ptx).read())
    dem = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.split("\n")
    out = {}
    for mangled, d in zip(names, dem):
        d = re.sub(r"^void\s+", "", d.split("(")[0])
        d = re.sub(r"(\d+)u\b", r"\1", d)
        out[d] = mangled
    return out


def main():
    result = {}
    for cu in sorted(glob.glob(os.path.join(HERE, "*.cu"))):
        base = os.path.basename(cu)
        ents = entries(os.path.join(HERE, base[:-3] + ".sm_90.ptx"))
        ns, pending, kernel, block, found = None, None, None, None, []
        for lineno, text in enumerate(open(cu), 1):
            if m := NS.match(text):
                ns = m.group(1)
            if m := BLOCK.search(text):
                pending = [int(m.group(1)), int(m.group(2) or 1), int(m.group(3) or 1)]
            if (m := GLOBAL.search(text)) and "template __global__" not in text:
                kernel = (ns + "::" if ns else "") + m.group(1)
                block, pending = pending, None
            if m := MARK.search(text):
                name = m.group(2) or kernel
                f = {"code": m.group(1), "line": lineno, "kernel": name}
                if name in ents:
                    f["entry"] = ents[name]
                if block:
                    f["block"] = block
                f["why"] = m.group(4).strip()
                found.extend(dict(f) for _ in range(int(m.group(3) or 1)))
        result[base] = found
    with open(os.path.join(HERE, "EXPECTED.json"), "w") as fh:
        json.dump(result, fh, indent=2)
        fh.write("\n")
    print(sum(map(len, result.values())), "findings in", len(result), "samples")


if __name__ == "__main__":
    main()
