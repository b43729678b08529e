// The election API's fencing tokens kept beside the check's nodes, for the `fenced`
// property: the API's own rules (src/core/fencing.ts, as src/api/election-api.ts applies
// them) played on every state, as the campaign plays them on every run
// (sim/campaign/tokens.ts):
// - a process that takes the coordinator role issues a token above every token it issued
//   or accepted; it holds it until it loses the role or crashes;
// - a live follower takes its coordinator's orders at once (as if every order arrived);
//   one that must refuse them (it accepted a higher token) tells its coordinator, which
//   leads on with a token above;
// - issuer and gate survive a crash, as the API's do while its program runs.
// What is judged: no order is accepted below a token accepted before, no two live
// processes hold one token, and (after the fault-free continuation) every live follower
// takes its coordinator's orders. The `raw` rule, for comparison, takes the election's
// (epoch, id) as the token and never raises it: the check shows what the API's raise is for.

import { indexOfSorted, Role } from "../../src/core/contract"
import { compareTokens, FenceGate, type FenceToken, formatToken, makeToken, sameToken, TokenIssuer } from "../../src/core/fencing"
import type { ElectionNode } from "../../src/core/node"
import { keyNumber, keyWord } from "./key"

/** Words per process: the issuer's last token, the gate's highest, the token held; each (epoch, holder), holder 0 for none. */
const WORDS = 6
const LAST = 0
const HIGHEST = 2
const HELD = 4

/** The API's tokens (issued, raised when refused), or the election's (epoch, id) as they are. */
export type TokenRule = "issued" | "raw"

export interface FenceState {
  rule: TokenRule
  words: number[]
  /** The first rule broken on the way here, or "". */
  broken: string
}

export function newFenceState(nodes: number, rule: TokenRule): FenceState {
  return { rule, words: new Array<number>(nodes * WORDS).fill(0), broken: "" }
}

export function cloneFenceState(f: FenceState): FenceState {
  return { rule: f.rule, words: f.words.slice(0), broken: f.broken }
}

function tokenAt(f: FenceState, i: number, slot: number): FenceToken | null {
  const w = i * WORDS + slot
  return f.words[w + 1] === 0 ? null : makeToken(f.words[w], f.words[w + 1])
}

function setToken(f: FenceState, i: number, slot: number, t: FenceToken | null) {
  const w = i * WORDS + slot
  f.words[w] = t ? t.epoch : 0
  f.words[w + 1] = t ? t.holder : 0
}

function gateOf(f: FenceState, i: number): FenceGate {
  const g = new FenceGate()
  g.highest = tokenAt(f, i, HIGHEST)
  return g
}

/** Process i issues a token for `epoch` above its last and above `seen` (what it accepted, or what a follower did). */
function issue(f: FenceState, i: number, id: number, epoch: number, seen: FenceToken | null): FenceToken {
  const issuer = new TokenIssuer(id)
  issuer.last = tokenAt(f, i, LAST)
  const t = f.rule === "raw" ? makeToken(epoch, id) : issuer.issue(epoch, seen)
  setToken(f, i, LAST, t)
  setToken(f, i, HELD, t)
  const g = gateOf(f, i)
  g.note(t)
  setToken(f, i, HIGHEST, g.highest)
  return t
}

function leads(n: ElectionNode): boolean {
  return !n.crashed && n.role === Role.Coordinator && n.coordinator === n.id
}

/** Applies the token rules to the nodes' roles as they now are; notes the first rule broken. */
export function settleTokens(f: FenceState, nodes: ElectionNode[]) {
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]
    const held = tokenAt(f, i, HELD)
    if (leads(n) && !held) issue(f, i, n.id, n.epoch, tokenAt(f, i, HIGHEST))
    else if (!leads(n) && held) setToken(f, i, HELD, null)
  }
  // followers take their coordinators' orders; a refusal raises the coordinator's token,
  // which its other followers then take too (each round raises a token: it ends)
  for (let round = 0; round <= nodes.length; round++) {
    let raised = false
    for (let p = 0; p < nodes.length; p++) {
      const n = nodes[p]
      if (n.crashed || n.role !== Role.Follower || n.coordinator === n.id) continue
      const c = indexOfSorted(n.ids, n.coordinator)
      if (c < 0 || !leads(nodes[c])) continue
      let token = tokenAt(f, c, HELD)!
      const gate = gateOf(f, p)
      if (!gate.admits(token)) {
        if (f.rule === "raw") continue
        token = issue(f, c, nodes[c].id, token.epoch, gate.highest)
        raised = true
      }
      const before = gate.highest
      if (!gate.offer(token)) {
        if (!f.broken) f.broken = `process ${n.id} refuses the token ${formatToken(token)} its coordinator raised for it`
        continue
      }
      if (before && compareTokens(token, before) < 0 && !f.broken)
        f.broken = `process ${n.id} accepted the token ${formatToken(token)} after ${formatToken(before)}`
      setToken(f, p, HIGHEST, gate.highest)
    }
    if (!raised) break
  }
  for (let i = 0; i < nodes.length; i++)
    for (let j = i + 1; j < nodes.length; j++) {
      const a = tokenAt(f, i, HELD)
      const b = tokenAt(f, j, HELD)
      if (a && b && sameToken(a, b) && !f.broken) f.broken = `processes ${nodes[i].id} and ${nodes[j].id} both hold the token ${formatToken(a)}`
    }
}

/** A live follower of a live coordinator whose gate refuses that coordinator's token, as words; "" when none. */
export function fencedOut(f: FenceState, nodes: ElectionNode[]): string {
  for (let p = 0; p < nodes.length; p++) {
    const n = nodes[p]
    if (n.crashed || n.role !== Role.Follower) continue
    const c = indexOfSorted(n.ids, n.coordinator)
    if (c < 0 || !leads(nodes[c])) continue
    const token = tokenAt(f, c, HELD)
    if (!token) return `coordinator ${nodes[c].id} holds no token`
    if (!gateOf(f, p).admits(token)) return `process ${n.id} refuses the orders of its coordinator ${nodes[c].id} (token ${formatToken(token)})`
  }
  return ""
}

/** The highest epoch of any token kept (tokens may be raised above their process's epoch). */
export function maxTokenEpoch(f: FenceState): number {
  let e = 0
  for (let w = 0; w < f.words.length; w += 2) if (f.words[w + 1] !== 0 && f.words[w] > e) e = f.words[w]
  return e
}

export function fenceText(f: FenceState): string {
  return "F" + f.words.join(",") + (f.broken ? "!" : "") + "#"
}

export function keyFence(f: FenceState) {
  for (let w = 0; w < f.words.length; w++) keyNumber(f.words[w])
  keyWord(f.broken ? 1 : 0)
}
