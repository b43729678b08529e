// What a run decided and cost, read off an engine after it ran: the shape of `electlab sim
// --json`, judged by the one checker. Kept out of the engine, which schedules and delivers.

import { checkRun, ProcessView, viewOf } from "./checker"
import { Engine } from "./engine"

/** What an election episode cost and decided; the shape of `electlab sim --json`. */
export interface Summary {
    coordinator: number
    agreement: boolean
    live: number[]
    crashed: number[]
    messages: number
    byKind: number[]
    frames: number
    heartbeats: number
    lost: number
    /** Messages whose frame is too long for one Jacdac packet (a list past 108 ids). */
    oversize: number
    electionTime: number
    violations: string[]
}

/** Each process as the checker sees it. */
export function processViewsOf(engine: Engine): ProcessView[] {
    const views: ProcessView[] = []
    for (let i = 0; i < engine.nodes.length; i++) views.push(viewOf(engine.nodes[i]))
    return views
}

/** Liveness and safety as the seeds state them, and the traffic since the last resetStats(). */
export function summarize(engine: Engine): Summary {
    const live: number[] = []
    const crashed: number[] = []
    for (let i = 0; i < engine.nodes.length; i++) {
        const n = engine.nodes[i]
        if (n.crashed) crashed.push(n.id)
        else live.push(n.id)
    }
    const traffic = engine.traffic
    const verdict = checkRun(processViewsOf(engine), {
        errors: engine.episode.errors,
        oversize: traffic.oversize,
        messages: traffic.messages,
        messageBudget: engine.messageBudget,
        maxInFlight: engine.maxInFlight,
        inFlightBudget: engine.inFlightBudget,
        stalled: engine.stalled,
    })
    return {
        coordinator: verdict.coordinator,
        agreement: verdict.agreement,
        live: live,
        crashed: crashed,
        messages: traffic.messages,
        byKind: traffic.byKind.slice(0),
        frames: traffic.frames,
        heartbeats: traffic.heartbeats,
        lost: traffic.lost,
        oversize: traffic.oversize,
        electionTime: engine.episode.electionTime(engine.nodes),
        violations: verdict.violations,
    }
}

/** Time of the last role or belief change of any live process since resetStats(), or -1. */
export function lastChangeOf(engine: Engine): number {
    return engine.episode.lastChange(engine.nodes)
}
