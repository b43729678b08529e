// Setup of the searches that `npm run test:ci` runs beside the labs, under `nice -n 19`
// (scripts/test-ci.sh): run some other way, the thread that runs them and the threads it
// starts still get the lowest CPU priority (this renices one thread, not the process), so a
// lab's VMs run on time while the searches take whatever the labs leave.
import { setPriority } from "node:os"

setPriority(19)
