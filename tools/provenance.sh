#!/bin/sh
# provenance.sh [NOTE...] -- the provenance lines that head every measured CSV
# (the book's one writer of them): GPU, driver, CUDA toolkit, date, commit,
# then each NOTE as a line.  BOOK_DATE and BOOK_COMMIT override the date and
# the commit (the GPU machine has no git; gpu-run.sh passes the commit).
q() { nvidia-smi --query-gpu="$1" --format=csv,noheader 2>/dev/null | head -1; }
echo "# gpu: $(q name)"
echo "# driver: $(q driver_version)"
echo "# cuda: $(${NVCC:-nvcc} --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
echo "# date: ${BOOK_DATE:-$(date -u '+%Y-%m-%d %H:%M UTC')}"
echo "# commit: ${BOOK_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || cat .book-commit 2>/dev/null || echo unknown)}"
for n in "$@"; do echo "# $n"; done
