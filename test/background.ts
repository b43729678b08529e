// Setup of the searches that `npm run test:ci` runs beside the labs: their process (and the
// worker processes a search starts, which inherit it) gets the lowest CPU priority, so a lab's
// VMs still run on time while the searches take whatever the labs leave.
import { setPriority } from "node:os"

setPriority(19)
