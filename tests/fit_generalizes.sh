#!/bin/sh
# ctest fit_h200_generalizes: `tilewave calibrate` fits an H200 file from the H100's (--base h100_sxm5) on this
# project's H200 probe folder, leaving its random set out, and the file must predict the given H200 random half
# (../shared/reference/calibration/random_half/h200_random.csv, none of whose shapes the folder holds) within 10%;
# holding out every set with shapes off 16 bytes too, within 12% (issue 33). Usage: tests/fit_generalizes.sh EXE
set -eu
exe=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
dir=hw/measured/h200_probe_2026-11-26
half=../shared/reference/calibration/random_half/h200_random.csv
"$exe" calibrate "$dir" --base h100_sxm5 --out "$out/all.lua" >/dev/null
"$exe" run tests/fit_generalizes.lua "$out/all.lua" "$half" 0.100
"$exe" calibrate "$dir" --base h100_sxm5 --holdout random,align,misalign,dtypes --out "$out/aligned.lua" >/dev/null
"$exe" run tests/fit_generalizes.lua "$out/aligned.lua" "$half" 0.120
