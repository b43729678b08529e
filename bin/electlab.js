#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so no build step stands between a clone and the tool.
import { register } from "tsx/esm/api"

register()
const { main } = await import("../sim/cli.ts")
await main(process.argv)
