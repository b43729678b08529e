// Measures what the fencing tokens promise against the algorithms' real runs: the campaign's
// seeded fault schedules, with every process running the election API's token rules
// (TokenIssuer, FenceGate) on its role changes. A process takes a coordinatorship's orders
// while it follows that coordinator (as if every order arrived), and keeps its gate across
// crashes (the lab's crash action; a reboot forgets it). Counted per algorithm and family:
//   coordinatorships, and how many had an election epoch at or below one an earlier
//     coordinatorship of the same process used (the raw token (epoch, id) would repeat);
//   orders refused: a process following a coordinator whose token is below one it took,
//     with raw tokens (epoch, id) and with the API's issued tokens (the follower then tells
//     the coordinator it follows, which leads on with a token above);
//   end refusals: after the faults and the quiet phase, live processes whose gate refuses the
//     agreed coordinator's token (its orders would never be taken again).
// `npx tsx sim/bench/token-order.ts [seeds]`

import { compareTokens, FenceGate, type FenceToken, makeToken, TokenIssuer } from "../../src/core/fencing"
import { algorithmName } from "../../src/core/frame"
import { Role } from "../../src/core/node"
import { TraceType, type TraceRecord } from "../../src/core/trace"
import { CAMPAIGN_FAMILIES, type Family, makePlan, planCommands } from "../campaign/plan"
import { ScenarioRunner } from "../scenario"

export interface TokenFigures {
  runs: number
  coordinatorships: number
  reusedEpochs: number
  refusedRaw: number
  refusedIssued: number
  endRefusedRaw: number
  endRefusedIssued: number
}

interface Proc {
  issuer: TokenIssuer
  gateRaw: FenceGate
  gateIssued: FenceGate
  raw: FenceToken | null
  issued: FenceToken | null
  following: number
  lastRaw: FenceToken | null
}

export function measureRun(seed: number, algorithm: number, family: Family): TokenFigures {
  const plan = makePlan(seed, algorithm, family)
  const runner = new ScenarioRunner("tokens", { quiet: true })
  const commands = planCommands(plan)
  const judged = commands.slice(0, commands.indexOf(`check stable-since=${plan.stableSince}`))
  const f: TokenFigures = { runs: 1, coordinatorships: 0, reusedEpochs: 0, refusedRaw: 0, refusedIssued: 0, endRefusedRaw: 0, endRefusedIssued: 0 }
  const procs = new Map<number, Proc>()
  const proc = (id: number): Proc => {
    let p = procs.get(id)
    if (!p) {
      p = { issuer: new TokenIssuer(id), gateRaw: new FenceGate(), gateIssued: new FenceGate(), raw: null, issued: null, following: -1, lastRaw: null }
      procs.set(id, p)
    }
    return p
  }
  const take = (p: Proc, c: Proc, cid: number) => {
    if (c.raw && !p.gateRaw.offer(c.raw)) f.refusedRaw++
    if (c.issued && !p.gateIssued.offer(c.issued)) {
      f.refusedIssued++
      // the API: a follower tells the coordinator it follows; its next orders carry a token above
      if (p.following === cid) {
        c.issued = c.issuer.issue(c.issued.epoch, p.gateIssued.highest)
        c.gateIssued.note(c.issued)
        p.gateIssued.offer(c.issued)
      }
    }
  }
  const onRecord = (r: TraceRecord) => {
    if (r.type !== TraceType.RoleChange) return
    const p = proc(r.node)
    const leads = r.role === Role.Coordinator && r.coordinator === r.node
    if (!leads && p.raw) {
      p.raw = null
      p.issued = null
    }
    if (leads && !p.raw) {
      f.coordinatorships++
      p.raw = makeToken(r.epoch, r.node)
      if (p.lastRaw && compareTokens(p.raw, p.lastRaw) <= 0) f.reusedEpochs++
      p.lastRaw = p.raw
      p.issued = p.issuer.issue(r.epoch, p.gateIssued.highest)
      p.gateRaw.note(p.raw)
      p.gateIssued.note(p.issued)
      // its followers take its orders
      for (const q of procs.values()) if (q !== p && q.following === r.node) take(q, p, r.node)
    }
    p.following = r.role === Role.Follower ? r.coordinator : -1
    if (r.role === Role.Follower && r.coordinator >= 0) take(p, proc(r.coordinator), r.coordinator)
  }
  judged.forEach((command, i) => {
    runner.runCommand(command, `seed ${seed} command ${i + 1}`)
    if (i === 0) runner.engine!.tracer = onRecord
  })
  // the end: live processes following the agreed coordinator
  const engine = runner.engine!
  for (const node of engine.nodes) {
    if (node.crashed || node.role !== Role.Follower || node.coordinator < 0) continue
    const c = proc(node.coordinator)
    const p = proc(node.id)
    if (c.raw && !p.gateRaw.admits(c.raw)) f.endRefusedRaw++
    if (c.issued && !p.gateIssued.admits(c.issued)) f.endRefusedIssued++
  }
  return f
}

function add(a: TokenFigures, b: TokenFigures) {
  for (const k of Object.keys(a) as (keyof TokenFigures)[]) a[k] += b[k]
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const seeds = Number(process.argv[2] ?? 100)
  console.log("algorithm         family             runs  reigns  reused  refused raw/issued  end refused raw/issued")
  for (let a = 1; a <= 6; a++)
    for (const family of CAMPAIGN_FAMILIES) {
      const total: TokenFigures = { runs: 0, coordinatorships: 0, reusedEpochs: 0, refusedRaw: 0, refusedIssued: 0, endRefusedRaw: 0, endRefusedIssued: 0 }
      for (let s = 1; s <= seeds; s++) add(total, measureRun(s, a, family))
      console.log(
        `${algorithmName(a).padEnd(17)} ${family.padEnd(18)} ${String(total.runs).padStart(4)}  ${String(total.coordinatorships).padStart(6)}  ${String(total.reusedEpochs).padStart(6)}  ${String(total.refusedRaw).padStart(7)} / ${String(total.refusedIssued).padEnd(7)}  ${String(total.endRefusedRaw).padStart(7)} / ${total.endRefusedIssued}`,
      )
    }
}
