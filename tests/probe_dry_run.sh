#!/bin/sh
# ctest probe_dry_run: scripts/probe --dry-run on the CPU. Usage: tests/probe_dry_run.sh TILEWAVE_EXE
# No PyTorch: only the plan can run; exit 77 so that ctest reports the test as skipped, not passed.
set -eu
exe=$1
if ! python3 -c "import torch" 2>/dev/null; then
  python3 scripts/probe --dry-run --quick | grep -q "PyTorch is not importable: plan only"
  echo "SKIPPED: PyTorch is not importable by python3 (the plan ran; the CPU dry run needs PyTorch)"
  exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python3 scripts/probe --dry-run --sets all --out "$out/probe" 2>/dev/null
shared=../shared/reference/calibration/h100
for f in gemm.csv bw.csv attention.csv layers.csv decode.csv; do
  [ "$(head -1 "$out/probe/$f")" = "$(head -1 "$shared/$f" | tr -d '\r')" ] || { echo "probe: $f columns differ from $shared/$f"; exit 1; }
  [ "$(wc -l < "$out/probe/$f")" -gt 1 ] || { echo "probe: $f has no rows"; exit 1; }
done
grep -q "dry True" "$out/probe/device.txt"
"$exe" calibrate "$out/probe" --base h100_sxm5 --rounds 1 --out "$out/fit.lua" 2>/dev/null | grep -q "wrote $out/fit.lua"
echo "probe dry run: files in the shared format, fitted and loaded"
