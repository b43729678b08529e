// The cluster options as command-line flags: one flag and one help text on every command.

import { type Command, Option } from "commander"
import { CLUSTER_OPTIONS, type ClusterUse, optionNamed } from "./cluster-config"

/** A commander Option for the cluster option `key` (an entry of CLUSTER_OPTIONS). */
export function clusterOption(key: string): Option {
  const o = optionNamed(key)
  return new Option(`${o.flag} <${o.arg}>`, o.help)
}

/** Every cluster option `use` takes, in the table's order: a new entry reaches each command that uses it. */
export function clusterOptions(use: ClusterUse): Option[] {
  return CLUSTER_OPTIONS.filter((o) => o.uses.includes(use)).map((o) => clusterOption(o.key))
}

/** Adds to `command` every cluster option `use` takes (returns the command, for chaining). */
export function addClusterOptions(command: Command, use: ClusterUse): Command {
  for (const o of clusterOptions(use)) command.addOption(o)
  return command
}
