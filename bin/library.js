// The package's entry for host programs: `import { joinElection } from "electlab"`. Loads the
// TypeScript library through tsx, as bin/electlab.js loads the CLI, so no build step is needed.
import { register } from "tsx/esm/api"

register()
const lib = await import("../sim/node/library.ts")

export const {
  joinElection,
  createElection,
  hostConfig,
  HostElection,
  Election,
  Duty,
  FenceGate,
  compareTokens,
  formatToken,
  Role,
  roleName,
} = lib
