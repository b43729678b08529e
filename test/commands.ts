// Reading the typed commands that `simCommands` gives (tests only).
import type { ClusterSpec } from "../sim/config/cluster-spec"
import type { ScenarioCommand } from "../sim/simulator/scenario"

/** The cluster spec of the first command, which must be `cluster`. */
export function clusterOf(commands: ScenarioCommand[]): ClusterSpec {
  const first = commands[0]
  if (first.verb !== "cluster") throw new Error(`the first command is ${first.verb}`)
  return first.spec
}
