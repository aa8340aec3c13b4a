#!/usr/bin/env bash
# Reference solution (shared by every desktop-basic task): replays solution/actions.json, canonical actions
# in screen pixels and X key names, through the desktop env server one action per /step, as an agent does.
set -euo pipefail
# step: replay the reference actions through the env server
actions=/solution/actions.json
[ -f "$(dirname "$0")/actions.json" ] && actions="$(dirname "$0")/actions.json"
jq -c '.[]' "$actions" | while read -r action; do
  printf '{"action":%s}' "$action" \
    | curl -sf -X POST "${OPENFORGE_ENV_URL:-http://127.0.0.1:7000}/step" -H 'content-type: application/json' \
      -H "authorization: Bearer ${OPENFORGE_ENV_TOKEN:-}" --data @- \
    | jq -c '{title, last_action_error}'
done
