#!/usr/bin/env bash
# Reference solution (shared by every browser-basic task): replays solution/actions.json, the reference
# canonical actions at the task's viewport, through the env server one action per /step — as an agent
# does, one action per turn with an observation in between. An action the env server reports failed stops it.
set -euo pipefail
# step: replay the reference actions through the env server
actions=/solution/actions.json
[ -f "$(dirname "$0")/actions.json" ] && actions="$(dirname "$0")/actions.json"
jq -c '.[]' "$actions" | while read -r action; do
  observation=$(printf '{"action":%s}' "$action" \
    | curl -sS -f -X POST "${OPENFORGE_BROWSER_ENV_URL:-http://127.0.0.1:7000}/step" -H 'content-type: application/json' \
      -H "authorization: Bearer ${OPENFORGE_ENV_TOKEN:-}" --data @-)
  jq -c '{url, last_action_error}' <<<"$observation"
  jq -e '.last_action_error == null' <<<"$observation" >/dev/null || { echo "the env server reports $action failed" >&2; exit 1; }
done
