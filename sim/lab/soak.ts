// `electlab soak` (npm run soak): the virtual lab left alone at steady state, with the
// machine kept busy by CPU burners, counting false suspicions: a board that leaves the
// follower role, or takes over, while the coordinator is alive (nothing is crashed here,
// so every election is a false alarm).

import { type ChildProcess, spawn } from "node:child_process"
import { loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import { Lab, type LabOptions, sleep } from "./lab"
import { Role, roleName } from "../../src/core/contract"

export interface SoakOptions {
  lab: LabOptions
  durationMs: number
  /** CPU-burning processes started for the run (one busy loop each). */
  burners: number
}

export interface SoakReport {
  transport: string
  failureDetector: string
  heartbeatMs: number
  failureTimeoutMs: number
  boards: number
  durationMs: number
  burners: number
  /** 1-minute load average, sampled every 5 s: mean and max. */
  load: { mean: number; max: number }
  /** Elections started while the coordinator was alive (a follower suspected it). */
  falseSuspicions: number
  /** Each of them: ms since the soak began, the board, the role it took. */
  suspicions: { atMs: number; node: number; role: string; coordinator: number }[]
  /** Election frames the boards sent during the soak (heartbeats are not counted). */
  electionFrames: number
  /** The highest epoch at the end less the one at the start: coordinator terms begun. */
  newEpochs: number
  coordinatorAtStart: number | null
  coordinatorAtEnd: number | null
  agreementAtEnd: boolean
  drops: number
  errors: number
}

function startBurners(n: number): ChildProcess[] {
  return Array.from({ length: n }, () => spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }))
}

export async function runSoak(o: SoakOptions, progress: (line: string) => void = () => {}): Promise<SoakReport> {
  const lab = new Lab(o.lab)
  const burners: ChildProcess[] = []
  const stopAll = async () => {
    for (const b of burners) b.kill("SIGKILL")
    await lab.stop()
  }
  const onSignal = (): void => void stopAll().then(() => process.exit(130))
  process.once("SIGINT", onSignal)
  try {
    await lab.start()
    await lab.waitForAgreement(60_000)
    const startCoordinator = lab.coordinator()
    const boards = [...lab.boards.values()]
    const txAtStart = boards.reduce((s, b) => s + b.tx, 0)
    const epochAtStart = Math.max(...boards.map((b) => b.epoch))
    const last = new Map(boards.map((b) => [b.node, { role: b.role, coordinator: b.coordinator }]))
    const suspicions: SoakReport["suspicions"] = []
    const t0 = performance.now()
    lab.onChange(() => {
      for (const b of lab.boards.values()) {
        const before = last.get(b.node)!
        if (b.role === before.role && b.coordinator === before.coordinator) continue
        // a follower that starts electing or takes over: it suspected a live coordinator
        if (before.role === Role.Follower && (b.role === Role.Electing || b.role === Role.Coordinator))
          suspicions.push({ atMs: Math.round(performance.now() - t0), node: b.node, role: b.role === null ? "booting" : roleName(b.role), coordinator: b.coordinator })
        last.set(b.node, { role: b.role, coordinator: b.coordinator })
      }
    })
    burners.push(...startBurners(o.burners))
    const loads: number[] = []
    while (performance.now() - t0 < o.durationMs) {
      await sleep(Math.min(5000, o.durationMs - (performance.now() - t0)))
      loads.push(loadavg()[0])
      progress(`${Math.round((performance.now() - t0) / 1000)} s: load ${loadavg()[0].toFixed(2)}, false suspicions ${suspicions.length}`)
    }
    for (const b of burners) b.kill("SIGKILL")
    const end = [...lab.boards.values()]
    const { agreed, coordinator } = lab.agreement()
    const t = o.lab.timing
    return {
      transport: o.lab.transport ?? "bus",
      failureDetector: t.failureDetector ?? "fixed",
      heartbeatMs: t.heartbeatInterval,
      failureTimeoutMs: t.failureTimeout,
      boards: o.lab.ids.length,
      durationMs: Math.round(performance.now() - t0),
      burners: o.burners,
      load: {
        mean: Math.round((loads.reduce((s, x) => s + x, 0) / Math.max(1, loads.length)) * 100) / 100,
        max: Math.round(Math.max(0, ...loads) * 100) / 100,
      },
      falseSuspicions: suspicions.length,
      suspicions,
      electionFrames: end.reduce((s, b) => s + b.tx, 0) - txAtStart,
      newEpochs: Math.max(...end.map((b) => b.epoch)) - epochAtStart,
      coordinatorAtStart: startCoordinator,
      coordinatorAtEnd: agreed ? coordinator : null,
      agreementAtEnd: agreed,
      drops: end.reduce((s, b) => s + b.drops, 0),
      errors: end.reduce((s, b) => s + b.errors, 0),
    }
  } finally {
    process.removeListener("SIGINT", onSignal)
    await stopAll()
  }
}
