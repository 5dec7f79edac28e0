#!/bin/bash
# pandoc-html.sh IN OUT -- the web edition's Markdown (IN) to one HTML body
# (OUT): MathML, numbered sections, the CUDA syntax definition.  Any pandoc
# warning fails the step: a formula pandoc cannot convert to MathML would
# otherwise show as raw TeX on the page (tests/tools/test_toolchain.sh
# holds a fixture that must fail here).
set -o pipefail
in=${1:?usage: pandoc-html.sh IN OUT}; out=${2:?usage: pandoc-html.sh IN OUT}
top=$(cd "$(dirname "$0")/.." && pwd)
if ! pandoc "$in" -f markdown -t html --wrap=none --mathml --number-sections \
       --syntax-definition="$top/tools/cuda.xml" --fail-if-warnings -o "$out" 2> "$out.log"; then
  cat "$out.log" >&2; rm -f "$out"
  echo "pandoc-html: $in: pandoc warned (above); the web page would show it" >&2; exit 1
fi
rm -f "$out.log"
