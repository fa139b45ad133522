#!/usr/bin/env bash
# update-goldens.sh — regenerates tests/golden/expected/<case>.json with the native CLI
# for every case in tests/golden/cases.tsv. Review the diff before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=build/native/tracemerge
[ -x "$cli" ] || bash scripts/build.sh
mkdir -p tests/golden/expected
grep -v '^#' tests/golden/cases.tsv | while IFS= read -r line; do
  name=$(cut -f1 <<<"$line"); input=$(cut -f2 <<<"$line"); options=$(cut -f3 <<<"$line")
  # shellcheck disable=SC2086  # options are space-separated words
  "$cli" "../shared/corpus/$input" $options -o "tests/golden/expected/$name.json" --quiet
  echo "updated tests/golden/expected/$name.json"
done
git --no-pager diff --stat -- tests/golden/expected || true
