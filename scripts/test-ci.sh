#!/usr/bin/env bash
# `npm run test:ci`: the longer searches (at the lowest CPU priority) in a vitest run of their
# own beside the labs, so that they fill the CPU the labs' VMs leave idle instead of taking
# turns with them for vitest's two workers; their report follows the labs'.
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
# every thread niced from the start (test/background.ts renices only the thread that runs it;
# Node's helper threads, started before it, kept the normal priority)
nice -n 19 npx vitest run --project slow >"$log" 2>&1 &
searches=$!
npx vitest run --project labs --project twelve
labs=$?
wait "$searches"
slow=$?
echo "--- the searches (vitest --project slow) ---"
cat "$log"
rm -f "$log"
exit $((labs != 0 || slow != 0))
