// The repository's folder, from which the lab, the web server and the benchmarks find the
// project's own files (sources, page, scenarios, bin/electlab.js).

import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..")
