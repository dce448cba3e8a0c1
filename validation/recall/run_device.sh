#!/bin/bash
# Runs on the device machine from a folder holding the suite's .cu files and make_driver.py; writes
# the logs to $OUT/raw and packs them as $OUT/recall_raw.tar.gz (collect.py reads that).
# Every kernel: a plain run, racecheck, and racecheck at info level reporting all hazards.
set -u
OUT=${OUT:-/tmp/out}; W=/tmp/recall; rm -rf $W; mkdir -p $W/raw
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  nvcc --version | tail -2 | head -1
  compute-sanitizer --version | tail -1
} > $W/raw/env.txt 2>&1
cat $W/raw/env.txt
python3 make_driver.py > $W/driver.cu && cp *.cu $W/ || exit 1
nvcc -arch=sm_90 -lineinfo -std=c++17 $W/driver.cu -o $W/app || exit 1
$W/app list > $W/raw/kernels.txt
one() {  # $1 kernel
  k=$1; W=/tmp/recall; T="timeout -k 5 60"
  $T $W/app $k > $W/raw/$k.plain.log 2>&1; echo "EXIT $?" >> $W/raw/$k.plain.log
  $T compute-sanitizer --tool racecheck $W/app $k > $W/raw/$k.racecheck.log 2>&1; echo "EXIT $?" >> $W/raw/$k.racecheck.log
  $T compute-sanitizer --tool racecheck --racecheck-detect-level info --racecheck-report all $W/app $k \
    > $W/raw/$k.racecheck_info.log 2>&1; echo "EXIT $?" >> $W/raw/$k.racecheck_info.log
}
export -f one
t0=$(date +%s)
cut -d' ' -f1 $W/raw/kernels.txt | xargs -P 8 -I{} bash -c 'one {}'
echo "took $(( $(date +%s) - t0 )) s"
(cd $W && tar czf $OUT/recall_raw.tar.gz raw)
