#!/usr/bin/env bash
# Grader entry point (shared by every desktop-basic task): runs tests/check.py, which reads the files the
# apps saved (openpyxl, python-docx, zip/XML) through the evaluator module of the desktop image
# (python3 -m osworld_eval's functions), and makes sure a reward is always written (0 if grading failed).
dir="$(cd "$(dirname "$0")" && pwd)"
out="${OPENFORGE_VERIFIER_DIR:-/logs/verifier}"
mkdir -p "$out"
rm -f "$out/reward.txt" "$out/reward.json"
PYTHONPATH=/opt/openforge/python timeout 60 python3 "$dir/check.py"
if [ ! -s "$out/reward.txt" ] && [ ! -s "$out/reward.json" ]; then
  echo "grader produced no reward; scoring 0"
  echo 0 > "$out/reward.txt"
fi
exit 0
