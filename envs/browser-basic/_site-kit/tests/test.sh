#!/usr/bin/env bash
# Grader entry point (shared by every browser-basic task): runs tests/grade.mjs, which reads the site's
# state from GET /api/state, and guarantees that a reward is always written (0 if grading failed).
dir="$(cd "$(dirname "$0")" && pwd)"
out="${OPENFORGE_VERIFIER_DIR:-/logs/verifier}"
mkdir -p "$out"
rm -f "$out/reward.txt" "$out/reward.json"
timeout 50 node "$dir/grade.mjs"
if [ ! -s "$out/reward.txt" ] && [ ! -s "$out/reward.json" ]; then
  echo "grader produced no reward; scoring 0"
  echo 0 > "$out/reward.txt"
fi
exit 0
