#!/bin/bash
# Runs on the H100 (device machine) from the repo root; writes everything to $OUT.
# Part 1: every labelled kernel plain + synccheck + racecheck (+ racecheck info).
# Part 2: constant-cache cost measurement (clock64 + ncu IDC metrics).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
W=/tmp/w; rm -rf $W; mkdir -p $W/raw
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
  nvcc --version | tail -2 | head -1
  compute-sanitizer --version | tail -1
  ncu --version | tail -1
} > $W/raw/env.txt 2>&1
cat $W/raw/env.txt
cd validation/sync
nvcc -arch=sm_90 -lineinfo labelled.cu -o $W/app || exit 1
$W/app list > $W/raw/kernels.txt
one() {  # $1 kernel
  k=$1; W=/tmp/w; T="timeout -k 5"
  $T 15 $W/app $k > $W/raw/$k.plain.log 2>&1; echo "EXIT $?" >> $W/raw/$k.plain.log
  $T 45 compute-sanitizer --tool synccheck $W/app $k > $W/raw/$k.synccheck.log 2>&1; echo "EXIT $?" >> $W/raw/$k.synccheck.log
  $T 45 compute-sanitizer --tool racecheck $W/app $k > $W/raw/$k.racecheck.log 2>&1; echo "EXIT $?" >> $W/raw/$k.racecheck.log
  $T 45 compute-sanitizer --tool racecheck --racecheck-detect-level info --racecheck-report all $W/app $k > $W/raw/$k.racecheck_info.log 2>&1; echo "EXIT $?" >> $W/raw/$k.racecheck_info.log
}
export -f one
date +%s > $W/t0
xargs -P 6 -I{} bash -c 'one {}' < $W/raw/kernels.txt
echo "parallel part took $(( $(date +%s) - $(cat $W/t0) )) s"
# synccheck once more, one process at a time (rules out interference between concurrent sanitizer sessions)
for k in $(cat $W/raw/kernels.txt); do
  timeout -k 5 45 compute-sanitizer --tool synccheck $W/app $k > $W/raw/$k.synccheck_seq.log 2>&1; echo "EXIT $?" >> $W/raw/$k.synccheck_seq.log
done
cuobjdump -sass $W/app > $W/raw/labelled.sm_90.sass
echo "sync part took $(( $(date +%s) - $(cat $W/t0) )) s"
(cd $W && tar czf $OUT/sync_raw.tar.gz raw)
cd ../const
nvcc -arch=sm_90 -lineinfo const_cost.cu -o $W/cc || exit 1
cuobjdump -sass $W/cc | grep -nE 'LDC|CS2R|S2UR' | head -40 > $OUT/const_sass.txt
$W/cc $OUT/const_clock.json | tee $OUT/const_clock.txt
ncu --csv --page raw --metrics sm__idc_divergent_instructions.sum,sm__idc_divergent_instruction_replays.sum,idc__requests.sum,idc__requests_lookup_hit.sum,idc__request_cycles_active.sum,sm__cycles_active.max $W/cc ncu > $OUT/const_ncu.csv 2> $OUT/const_ncu.err
tail -3 $OUT/const_ncu.err; wc -l $OUT/const_ncu.csv
cp $W/raw/env.txt $OUT/env.txt
for k in $(cat $W/raw/kernels.txt); do echo "$k $(grep -h "ERROR SUMMARY" $W/raw/$k.synccheck.log $W/raw/$k.synccheck_seq.log | tr -d = | tr "\n" " ")"; done | grep -v "0 errors  ERROR SUMMARY: 0 errors"
