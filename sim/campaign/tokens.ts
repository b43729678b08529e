// The fencing tokens of the election API (src/core/fencing.ts) played over a simulated run:
// every process runs the API's token rules on its role changes. A process takes a
// coordinatorship's orders while it follows that coordinator (as if every order arrived) and
// keeps its gate across crashes (a reboot would forget it). The campaign judges every run by
// it (no order accepted below one accepted before; at the end every live follower takes the
// agreed coordinator's orders); `sim/bench/token-order.ts` sums it per algorithm and family.

import { compareTokens, FenceGate, type FenceToken, makeToken, TokenIssuer } from "../../src/core/fencing"
import type { Engine } from "../../src/core/engine"
import { Role } from "../../src/core/contract"

export interface TokenFigures {
  runs: number
  coordinatorships: number
  /** Coordinatorships whose election epoch was at or below one the same process used before (the raw token (epoch, id) would repeat). */
  reusedEpochs: number
  /** Orders refused: with raw tokens (epoch, id), and with the API's issued tokens. */
  refusedRaw: number
  refusedIssued: number
  /** Orders accepted although a higher token had been accepted before (must be 0). */
  staleAccepted: number
  /** At the end: live followers whose gate refuses their coordinator's token. */
  endRefusedRaw: number
  endRefusedIssued: number
}

export function noTokenFigures(): TokenFigures {
  return { runs: 0, coordinatorships: 0, reusedEpochs: 0, refusedRaw: 0, refusedIssued: 0, staleAccepted: 0, endRefusedRaw: 0, endRefusedIssued: 0 }
}

interface Proc {
  issuer: TokenIssuer
  gateRaw: FenceGate
  gateIssued: FenceGate
  raw: FenceToken | null
  issued: FenceToken | null
  following: number
  lastRaw: FenceToken | null
  /** The last issued token this process accepted. */
  lastAccepted: FenceToken | null
}

export class TokenTally {
  readonly figures = noTokenFigures()
  private procs = new Map<number, Proc>()

  constructor() {
    this.figures.runs = 1
  }

  /** Watch a run: every role change of the engine from now on. */
  watch(engine: Engine) {
    engine.roleObserver = (node, role, coordinator, epoch) => this.roleChanged(node, role, coordinator, epoch)
  }

  private proc(id: number): Proc {
    let p = this.procs.get(id)
    if (!p) {
      p = { issuer: new TokenIssuer(id), gateRaw: new FenceGate(), gateIssued: new FenceGate(), raw: null, issued: null, following: -1, lastRaw: null, lastAccepted: null }
      this.procs.set(id, p)
    }
    return p
  }

  /** p takes an order of coordinator c (cid). */
  private take(p: Proc, c: Proc, cid: number) {
    const f = this.figures
    if (c.raw && !p.gateRaw.offer(c.raw)) f.refusedRaw++
    if (!c.issued) return
    if (p.gateIssued.offer(c.issued)) this.accepted(p, c.issued)
    else {
      f.refusedIssued++
      // the API: a follower tells the coordinator it follows; its next orders carry a token above
      if (p.following === cid) {
        c.issued = c.issuer.issue(c.issued.epoch, p.gateIssued.highest)
        c.gateIssued.note(c.issued)
        if (p.gateIssued.offer(c.issued)) this.accepted(p, c.issued)
      }
    }
  }

  private accepted(p: Proc, token: FenceToken) {
    if (p.lastAccepted && compareTokens(token, p.lastAccepted) < 0) this.figures.staleAccepted++
    p.lastAccepted = token
  }

  roleChanged(node: number, role: number, coordinator: number, epoch: number) {
    const f = this.figures
    const p = this.proc(node)
    const leads = role === Role.Coordinator && coordinator === node
    if (!leads && p.raw) {
      p.raw = null
      p.issued = null
    }
    if (leads && !p.raw) {
      f.coordinatorships++
      p.raw = makeToken(epoch, node)
      if (p.lastRaw && compareTokens(p.raw, p.lastRaw) <= 0) f.reusedEpochs++
      p.lastRaw = p.raw
      p.issued = p.issuer.issue(epoch, p.gateIssued.highest)
      p.gateRaw.note(p.raw)
      p.gateIssued.note(p.issued)
      // its followers take its orders
      for (const q of this.procs.values()) if (q !== p && q.following === node) this.take(q, p, node)
    }
    p.following = role === Role.Follower ? coordinator : -1
    if (role === Role.Follower && coordinator >= 0) this.take(p, this.proc(coordinator), coordinator)
  }

  /** The end of a run: live followers whose gate would refuse their coordinator's orders. */
  judgeEnd(engine: Engine) {
    const f = this.figures
    for (const node of engine.nodes) {
      if (node.crashed || node.role !== Role.Follower || node.coordinator < 0) continue
      const c = this.proc(node.coordinator)
      const p = this.proc(node.id)
      if (c.raw && !p.gateRaw.admits(c.raw)) f.endRefusedRaw++
      if (c.issued && !p.gateIssued.admits(c.issued)) f.endRefusedIssued++
    }
  }
}

export function addTokenFigures(a: TokenFigures, b: TokenFigures) {
  for (const k of Object.keys(a) as (keyof TokenFigures)[]) a[k] += b[k]
}
