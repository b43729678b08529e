// Scripted message delays for the simulator: `script delays=1.5,x,0.25+2` in a scenario
// gives the n-th message sent (one per destination, in send order) its delay; `x` loses it
// and `A+B` also delivers a copy after B. Messages past the list take the network's own
// delay. This is how a counterexample of `electlab check` replays in `electlab sim`.

import type { DuplicationModel, Engine, NetworkModel } from "../../src/core/engine"
import type { Frame } from "../../src/core/frame"
import { InputError, keyValues } from "../config/input"
import { type FaultChange, FaultyNetwork } from "./faults"

export interface ScriptedDelay {
  /** Delay of the message; negative: lost. */
  delay: number
  /** Delay of a second copy; negative: none. */
  copy: number
}

export class ScriptedNetwork implements NetworkModel, DuplicationModel {
  private next = 0
  private pendingCopy = -1

  constructor(
    private inner: NetworkModel,
    private delays: ScriptedDelay[],
  ) {}

  delay(src: number, dst: number, frame: Frame, now: number): number {
    this.pendingCopy = -1
    if (this.next >= this.delays.length) return this.inner.delay(src, dst, frame, now)
    const d = this.delays[this.next++]
    this.pendingCopy = d.copy
    return d.delay
  }

  duplicateDelay(): number {
    const c = this.pendingCopy
    this.pendingCopy = -1
    return c
  }

  frames(to: number[], frame: Frame): number {
    return this.inner.frames(to, frame)
  }

  /** Fault commands after `script` still reach the fault layer underneath. */
  at(change: FaultChange) {
    if (!(this.inner instanceof FaultyNetwork)) throw new Error("no fault layer under the script")
    this.inner.at(change)
  }
}

function parseDelay(text: string, where: string): number {
  if (!/^\d+(\.\d+)?$/.test(text)) throw new InputError(`'${text}' is not a delay (a number, or x for lost)`, where)
  const d = Number(text)
  if (!(d > 0)) throw new InputError(`delay ${text} must be above 0`, where)
  return d
}

export function parseDelays(text: string, where: string): ScriptedDelay[] {
  return text.split(",").map((item, i) => {
    const at = `${where}: delay ${i + 1}`
    if (item === "x") return { delay: -1, copy: -1 }
    const [main, copy, extra] = item.split("+")
    if (extra !== undefined) throw new InputError(`'${item}': at most one copy (A+B)`, at)
    return { delay: parseDelay(main, at), copy: copy === undefined ? -1 : parseDelay(copy, at) }
  })
}

/** Reads the `script` scenario command's arguments: the delays listed. */
export function parseScript(args: string[], where: string): ScriptedDelay[] {
  const kv = keyValues(args, where)
  for (const key of kv.keys()) if (key !== "delays") throw new InputError(`unknown key '${key}'; known: delays`, where)
  if (!kv.has("delays")) throw new InputError("expected: script delays=D1,D2,... (x: lost, A+B: a copy after B)", where)
  return parseDelays(kv.get("delays")!, where)
}

/** The `script` scenario command: from now on, messages take the delays listed. */
export function applyScript(engine: Engine, delays: ScriptedDelay[]) {
  const scripted = new ScriptedNetwork(engine.network, delays)
  ;(engine as { network: NetworkModel }).network = scripted
  engine.duplication = scripted
}
