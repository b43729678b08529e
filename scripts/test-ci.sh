#!/usr/bin/env bash
# `npm run test:ci`: the longer searches (at the lowest CPU priority) in a vitest run of their
# own beside the labs, so that they fill the CPU the labs' VMs leave idle instead of taking
# turns with them for vitest's two workers; their report follows the labs'.
#   scripts/test-ci.sh            both, side by side
#   scripts/test-ci.sh searches   the searches alone (.ci/run starts them before `npm test`)
#   scripts/test-ci.sh labs       the labs alone
set -uo pipefail
cd "$(dirname "$0")/.."
vitest=node_modules/.bin/vitest
case "${1:-both}" in
  # every thread niced from the start (test/background.ts renices only the thread that runs it;
  # Node's helper threads, started before it, kept the normal priority)
  searches) exec nice -n 19 "$vitest" run --project slow ;;
  labs) exec "$vitest" run --project labs --project twelve ;;
  both) ;;
  *) echo "scripts/test-ci.sh: unknown part '$1' (searches, labs or nothing for both)" >&2; exit 2 ;;
esac
log=$(mktemp)
bash scripts/test-ci.sh searches >"$log" 2>&1 &
searches=$!
bash scripts/test-ci.sh labs
labs=$?
wait "$searches"
slow=$?
echo "--- the searches (vitest --project slow) ---"
cat "$log"
rm -f "$log"
exit $((labs != 0 || slow != 0))
