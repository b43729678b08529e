// The zoomed view of one election: the frames the tap saw, laid out by causal order rather
// than by wall-clock time, so that an election of a few milliseconds reads step by step.
// Pure (frames in, steps out): the page draws it and the tests check it without a browser.

/** A tapped frame as the layout needs it (TappedFrame has these fields). */
export interface CausalFrame {
  /** Tap time, ms. */
  at: number
  src: number
  /** Destination, or -1 for a broadcast. */
  dst: number
  kind: string
  epoch: number
}

/** One column: a unicast, a broadcast, or the copies of a multicast (one kind from one board to several, at once). */
export interface CausalStep {
  /** Column of the zoomed diagram, from 0. */
  step: number
  /** Lamport clock of the send (of its first copy), from the send/receive pairs (receipt at tap time + hub delay). */
  lamport: number
  src: number
  kind: string
  epoch: number
  /** Tap time of its first frame, ms. */
  at: number
  /** Destinations in the order the tap saw them; [-1] for a broadcast. */
  dsts: number[]
}

export interface CausalOptions {
  /** Copies of one multicast reach the hub within this many ms of its first copy. */
  multicastMs?: number
  /** The hub holds each frame this long: a frame is received no earlier than its tap time plus this. */
  hubDelayMs?: number
}

/**
 * Steps in tap order: the tap sees a frame before any frame it causes (a board answers only
 * after the hub relayed the question), so that order is causal. Unicasts of the same kind and
 * epoch from one board within `multicastMs`, with no frame to that board in between, share a
 * step (a multicast: one column, several arrows); the tap cannot tell them from separate sends
 * (three OKs to three askers), but nothing in between could have caused the later copies, so
 * the column order stays causal.
 * The Lamport clock ticks on each send and takes the maximum over the frames the sender had
 * received before it (received = tapped at least `hubDelayMs` earlier, so it never misses a cause).
 */
export function causalSteps(frames: readonly CausalFrame[], options: CausalOptions = {}): CausalStep[] {
  const multicastMs = options.multicastMs ?? 10
  const hubDelay = options.hubDelayMs ?? 0
  const ordered = frames.map((f, i) => ({ f, i })).sort((a, b) => a.f.at - b.f.at || a.i - b.i).map((x) => x.f)
  const steps: CausalStep[] = []
  const lastOf = new Map<number, { step: CausalStep; index: number }>()
  const reaches = (g: CausalFrame, node: number) => g.src !== node && (g.dst === node || g.dst === -1)
  ordered.forEach((f, i) => {
    const last = lastOf.get(f.src)
    const open = last?.step
    if (
      open &&
      !ordered.slice(last.index + 1, i).some((g) => reaches(g, f.src)) &&
      f.dst >= 0 &&
      open.dsts[0] >= 0 &&
      open.kind === f.kind &&
      open.epoch === f.epoch &&
      f.at - open.at <= multicastMs &&
      !open.dsts.includes(f.dst)
    ) {
      open.dsts.push(f.dst)
      return
    }
    const step: CausalStep = { step: steps.length, lamport: 0, src: f.src, kind: f.kind, epoch: f.epoch, at: f.at, dsts: [f.dst] }
    steps.push(step)
    lastOf.set(f.src, { step, index: i })
  })
  // Lamport clocks: a send's clock is one more than the sender's last send and than every
  // send it had received by then.
  const clock = new Map<number, number>()
  for (const s of steps) {
    let c = clock.get(s.src) ?? 0
    for (const g of steps) {
      if (g.step >= s.step) break
      const reached = g.src !== s.src && (g.dsts[0] === -1 || g.dsts.includes(s.src))
      if (reached && g.at + hubDelay <= s.at) c = Math.max(c, g.lamport)
    }
    s.lamport = c + 1
    clock.set(s.src, s.lamport)
  }
  return steps
}

/**
 * How long after a failover's end a frame sent within it can still reach the tap: a new
 * coordinator's first heartbeat goes out before its COORDINATOR, the followers can agree on
 * the heartbeat, and the COORDINATOR comes through the hub just after (seen: a few ms, under load).
 */
export const FAILOVER_TAIL_MS = 50

/** The frames of one failover: from its trigger to its end (or to now, while it lasts) and its tail, heartbeats left out. */
export function framesOfFailover<F extends CausalFrame>(frames: readonly F[], startedAt: number, end: number): F[] {
  return frames.filter((f) => f.kind !== "HEARTBEAT" && f.at >= startedAt && f.at <= end + FAILOVER_TAIL_MS)
}
