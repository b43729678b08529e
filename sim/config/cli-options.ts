// The cluster options as command-line flags: one flag and one help text on every command.

import { Option } from "commander"
import { optionNamed } from "./cluster-config"

/** A commander Option for the cluster option `key` (an entry of CLUSTER_OPTIONS). */
export function clusterOption(key: string): Option {
  const o = optionNamed(key)
  return new Option(`${o.flag} <${o.arg}>`, o.help)
}
