#!/usr/bin/env bash
# Reference solution (shared by every browser-basic task): posts solution/actions.json, the reference
# canonical actions at the task's viewport, to the env server in one /step call.
set -euo pipefail
# step: replay the reference actions through the env server
actions=/solution/actions.json
[ -f "$(dirname "$0")/actions.json" ] && actions="$(dirname "$0")/actions.json"
jq -c '{actions: .}' "$actions" \
  | curl -sf -X POST "${OPENFORGE_BROWSER_ENV_URL:-http://127.0.0.1:7000}/step" -H 'content-type: application/json' --data @- \
  | jq '{url, title, last_action_error}'
