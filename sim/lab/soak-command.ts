// `electlab soak`: flags to options, one soak per transport, a JSON report on stdout.

import { InputError, parseDetectorName, parseInteger, parseNumber } from "../config/input"
import { labOptions } from "./command"
import { runSoak, type SoakReport } from "./soak"

export interface SoakFlags {
  transports: string
  minutes: string
  burn: string
  boards: string
  failureDetector: string
  heartbeat?: string
  failTimeout?: string
}

export async function runSoakCommand(flags: SoakFlags): Promise<number> {
  const transports = flags.transports.split(",").map((t) => t.trim())
  for (const t of transports)
    if (t !== "bus" && t !== "mqtt") throw new InputError(`unknown transport '${t}'; known: bus, mqtt`, "--transports")
  const durationMs = parseNumber(flags.minutes, "--minutes", 0.05, 120) * 60_000
  const burners = parseInteger(flags.burn, "--burn", 0, 64)
  const detector = parseDetectorName(flags.failureDetector, "--failure-detector")
  const reports: SoakReport[] = []
  for (const transport of transports) {
    const lab = labOptions({
      boards: flags.boards,
      loss: "0",
      delay: "0",
      seed: "1",
      transport,
      failureDetector: detector,
      heartbeat: flags.heartbeat,
      failTimeout: flags.failTimeout,
    })
    const { heartbeatInterval: heartbeat, failureTimeout: failTimeout } = lab.timing
    process.stderr.write(`soak over ${transport}: ${lab.ids.length} boards, ${detector} detector, heartbeat ${heartbeat} ms, timeout ${failTimeout} ms, ${burners} CPU burners, ${flags.minutes} min\n`)
    const report = await runSoak({ lab, durationMs, burners }, (line) => process.stderr.write(`  ${transport} ${line}\n`))
    reports.push(report)
    process.stderr.write(
      `soak over ${transport}: ${report.falseSuspicions} false suspicions, ${report.electionFrames} election frames, load ${report.load.mean} (max ${report.load.max}), agreement at the end: ${report.agreementAtEnd}\n`,
    )
  }
  process.stdout.write(JSON.stringify(reports, null, 2) + "\n")
  return reports.every((r) => r.falseSuspicions === 0 && r.agreementAtEnd) ? 0 : 3
}
