"""Reads raw/recall_raw.tar.gz (what run_device.sh wrote on the device) and writes racecheck.json:
per kernel its launch, whether the plain run completed, and racecheck's hazards (default level, and
info level with every hazard reported). stdlib only: `python3 collect.py`."""

import json
import re
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
_SUMMARY = re.compile(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)")
_KIND = re.compile(r"Potential (RAW|WAR|WAW) hazard")


def _summary(log: str) -> dict:
    m = _SUMMARY.search(log)
    if m is None:
        return {"completed": False}
    return {"completed": True, "errors": int(m.group(2)), "warnings": int(m.group(3)),
            "warp_level": "Warp Level Programming" in log, "kinds": sorted(set(_KIND.findall(log)))}


def main() -> None:
    with tarfile.open(HERE / "raw" / "recall_raw.tar.gz") as tar:
        logs = {Path(m.name).name: tar.extractfile(m).read().decode() for m in tar.getmembers() if m.isfile()}
    gpu, nvcc, sanitizer = logs["env.txt"].strip().splitlines()[:3]
    sources = {name: src for src in ("shared.cu", "global.cu", "warp.cu")
               for name in re.findall(r"__global__ void ((?:bad|ok)_\w+)\(", (HERE / src).read_text())}
    kernels = []
    for line in logs["kernels.txt"].splitlines():
        name, launch = line.split(" ", 1)
        text = (HERE / sources[name]).read_text()
        body = text[text.index(f"void {name}("):]
        body = body[:body.find("\n}\n")]
        plain = logs[f"{name}.plain.log"]
        default, info = _summary(logs[f"{name}.racecheck.log"]), _summary(logs[f"{name}.racecheck_info.log"])
        shared = "__shared__" in body
        seen = default.get("errors", 0) + default.get("warnings", 0) > 0
        kernels.append({
            "kernel": name, "source": sources[name], "label": name.split("_")[0],
            "launch": "<<<" + launch.replace(") dim3(", "), dim3(") + ">>>",
            "plain_run_completed": plain.rstrip().endswith("EXIT 0") and "error" not in plain,
            "racecheck": default, "racecheck_info_all": info,
            # racecheck watches shared memory only: a global-memory kernel's label is the model's alone
            "racecheck_applies": shared,
            "racecheck_agrees": (seen == name.startswith("bad_")) if shared else None,
        })
    out = {"gpu": gpu, "nvcc": nvcc, "compute_sanitizer": sanitizer, "arch": "sm_90",
           "build": "python3 make_driver.py > driver.cu; nvcc -arch=sm_90 -lineinfo -std=c++17 driver.cu -o app",
           "tools": {"racecheck": "compute-sanitizer --tool racecheck ./app NAME",
                     "racecheck_info_all": "compute-sanitizer --tool racecheck --racecheck-detect-level info "
                                           "--racecheck-report all ./app NAME"},
           "kernels": kernels}
    (HERE / "racecheck.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
