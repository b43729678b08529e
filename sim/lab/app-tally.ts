// Application messages as the boards log them (the election API's "EL app" lines): per board
// the orders accepted and refused by the fence, the plain messages received, and
// `staleAccepted`, orders accepted after one with a higher token had been accepted (the
// fence's promise: always 0). Counted from the lines, independently of the boards' own gates,
// and across reboots: a board that restarts forgets its gate, the tally does not.

import { compareTokens, type FenceToken } from "../../src/core/fencing"
import type { BoardEvent } from "./board-event"

export interface AppFigures {
  node: number
  /** Orders accepted by the fence. */
  accepted: number
  /** Orders refused by the fence (token below the highest accepted). */
  refused: number
  /** Plain messages received (followers' messages to the coordinator, or broadcasts). */
  received: number
  /** Orders accepted after one with a higher token was accepted: must be 0. */
  staleAccepted: number
  /** The highest token accepted, "epoch.holder", or null. */
  highestToken: string | null
}

/** "7.5" → { epoch: 7, holder: 5 }; null when malformed. */
export function parseToken(text: string | undefined): FenceToken | null {
  const m = /^(\d+)\.(\d+)$/.exec(text ?? "")
  return m ? { epoch: Number(m[1]), holder: Number(m[2]) } : null
}

export class AppTally {
  private boards = new Map<number, AppFigures & { highest: FenceToken | null }>()

  private board(node: number) {
    let b = this.boards.get(node)
    if (!b) {
      b = { node, accepted: 0, refused: 0, received: 0, staleAccepted: 0, highestToken: null, highest: null }
      this.boards.set(node, b)
    }
    return b
  }

  /** Takes a board's log line; only "app" lines count. */
  onEvent(e: BoardEvent) {
    if (e.event !== "other" || e.name !== "app") return
    const b = this.board(e.node)
    if (e.fields.k !== "order") {
      b.received++
      return
    }
    const token = parseToken(e.fields.tok)
    if (!token) return
    if (e.fields.ok !== "1") {
      b.refused++
      return
    }
    b.accepted++
    if (b.highest && compareTokens(token, b.highest) < 0) b.staleAccepted++
    else {
      b.highest = token
      b.highestToken = e.fields.tok
    }
  }

  /** Every board's figures, by node id; boards that logged nothing have zeros. */
  figures(nodes: number[]): AppFigures[] {
    return nodes.map((n) => {
      const { highest: _, ...f } = this.board(n)
      return f
    })
  }
}
