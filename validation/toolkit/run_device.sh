#!/bin/bash
# Runs on the H100 (device machine); $1 = the folder holding toolkit.cu. Writes everything to $OUT.
# Every labelled kernel: plain, under compute-sanitizer racecheck and synccheck (8 at a time).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
SRC=$(cd "${1:-.}" && pwd)
W=/tmp/tkw; rm -rf $W; mkdir -p $W/raw
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  nvcc --version | tail -2 | head -1
  compute-sanitizer --version | tail -1
} > $W/raw/env.txt 2>&1
cat $W/raw/env.txt
t0=$(date +%s)
nvcc -arch=sm_90 -lineinfo "$SRC/toolkit.cu" -o $W/app > $W/raw/build.log 2>&1 || { cat $W/raw/build.log; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
$W/app list > $W/raw/kernels.txt
one() {  # $1 kernel
  k=$1; W=/tmp/tkw; T="timeout -k 5"
  $T 30 $W/app $k > $W/raw/$k.plain.log 2>&1; echo "EXIT $?" >> $W/raw/$k.plain.log
  $T 60 compute-sanitizer --tool racecheck $W/app $k > $W/raw/$k.racecheck.log 2>&1; echo "EXIT $?" >> $W/raw/$k.racecheck.log
  $T 60 compute-sanitizer --tool synccheck $W/app $k > $W/raw/$k.synccheck.log 2>&1; echo "EXIT $?" >> $W/raw/$k.synccheck.log
}
export -f one
xargs -P 8 -I{} bash -c 'one {}' < $W/raw/kernels.txt
echo "all runs took $(( $(date +%s) - t0 )) s"
(cd $W && tar czf $OUT/toolkit_raw.tar.gz raw)
for k in $(cat $W/raw/kernels.txt); do
  echo "$k | $(tail -1 $W/raw/$k.plain.log) | $(grep -h "RACECHECK SUMMARY\|ERROR SUMMARY" $W/raw/$k.racecheck.log | tr -d = | tr '\n' ' ') | $(grep -h "ERROR SUMMARY" $W/raw/$k.synccheck.log | tr -d =)"
done
