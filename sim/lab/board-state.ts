// The lab's view of one board, in one typed place: the board's log lines and its service
// registers are parsed once, here, at the boundary (role as the core's Role, numbers as
// numbers). The dashboard, the headless summary and the web view read only this.

import { Role, roleName } from "../../src/core/contract"

export interface BoardState {
  node: number
  /** The VM (or host node) process is running. */
  powered: boolean
  /** The firmware has logged its boot line since the process started. */
  booted: boolean
  /** null until the board reports a role (booting, or off). */
  role: Role | null
  coordinator: number
  epoch: number
  /** Frames sent and received since boot, heartbeats included (the service's registers). */
  framesSent: number
  framesReceived: number
  /** Election frames (heartbeats left out) sent and received since boot, from the log. */
  tx: number
  rx: number
  drops: number
  errors: number
  /** The boot nonce the board drew (its service register and its log), or null before boot. */
  nonce: number | null
  /** The role register as last read over the bus (null before the first read). */
  registerRole: Role | null
  /** Frames refused by authentication, and by reason (bad-tag, unsigned, replay, ...). */
  refused: number
  refusedWhy: Record<string, number>
  /** Times the program panicked (out of memory, an uncaught exception) and the VM restarted it. */
  panics: number
  /**
   * The program's heap, in bytes, after the VM's last collection, and the most after any
   * collection since the lab started (a power cycle keeps it); null for a host node.
   */
  heapLive: number | null
  heapPeak: number | null
  /** What was live at the heap's peak, by the runtime's kind of block (array, map, buffer, activation, ...). */
  heapKinds: HeapKinds | null
  /** The program has logged an election line since its VM started (it started an election). */
  programStarted: boolean
  /** A problem of its configuration the board reported at boot, in its own words (it takes no part), or null. */
  problem: string | null
}

/** Blocks and bytes per kind of the runtime's heap blocks. */
export type HeapKinds = Record<string, { blocks: number; bytes: number }>

export function emptyBoard(node: number): BoardState {
  return {
    node,
    powered: true,
    booted: false,
    role: null,
    coordinator: -1,
    epoch: 0,
    framesSent: 0,
    framesReceived: 0,
    tx: 0,
    rx: 0,
    drops: 0,
    errors: 0,
    nonce: null,
    registerRole: null,
    refused: 0,
    refusedWhy: {},
    panics: 0,
    heapLive: null,
    heapPeak: null,
    heapKinds: null,
    programStarted: false,
    problem: null,
  }
}

const ROLES = [Role.Follower, Role.Coordinator, Role.Electing, Role.Crashed, Role.Misconfigured]

/** "coordinator" → Role.Coordinator; null for a name the core does not have. */
export function parseRole(name: string | undefined): Role | null {
  return ROLES.find((r) => roleName(r) === name) ?? null
}

/** What a person reads: the role's name, "booting" before the first report, "off" without power. */
export function boardRoleName(b: BoardState): string {
  if (!b.powered) return "off"
  return b.role === null ? "booting" : roleName(b.role)
}

/** Powered, booted and not crashed: a board that takes part. */
export function isLive(b: BoardState): boolean {
  return b.powered && b.booted && b.role !== Role.Crashed
}
