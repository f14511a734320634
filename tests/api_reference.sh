#!/bin/sh
# ctest api_reference: the API reference builds without an LDoc warning (scripts/docs), and its
# entries read as scripts call them (issue 70 item 10): tw.serve.size on the tw.serve page and
# tw.sweep, tw.range on the tw page, no page under an internal module name for them; decode's
# weight_dtype default is the checkpoint's format.
set -eu
./scripts/docs
m=build/api/modules
for f in tilewave.serve.size.html tilewave.explore.sweep.html; do
  [ ! -e "$m/$f" ] || { echo "api: $f: scripts call it through tw, not by its internal module"; exit 1; }
done
grep -q '<a name = "size"></a>' "$m/tw.serve.html" || { echo "api: no size entry in tw.serve"; exit 1; }
grep -q '<a name = "sweep"></a>' "$m/tw.html" || { echo "api: no sweep entry in tw"; exit 1; }
grep -q '<a name = "range"></a>' "$m/tw.html" || { echo "api: no range entry in tw"; exit 1; }
grep -q "default: the checkpoint's format" "$m/tw.inference.html" || { echo "api: decode's weight_dtype default"; exit 1; }
echo "api: entries named as scripts call them"
