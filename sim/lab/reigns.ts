// Who held the coordinator role when, for the lab's `overlapMs`. Each board logs its role
// changes on its own clock (`t=`, ms since its boot); lines from different processes reach
// the lab in whatever order the pipes deliver them, so arrival times cannot order two
// boards' events. Each board's clock is mapped to the host's by the least-delayed line seen
// (host arrival minus board time is the offset plus that line's delay: the least is the
// best estimate), which keeps causally ordered events (a RESIGN sent, then the claimer's
// role change) in order up to the clocks' 1 ms resolution.

/** A board held the role from `from` to `to` (host ms; null: it still holds it). */
export interface Reign {
  node: number
  from: number
  to: number | null
}

export class CoordinatorReigns {
  private reigns: Reign[] = []
  /** Per board: host time minus board time, the least seen. */
  private offsets = new Map<number, number>()

  /** The host time of a line a board logged at `t` on its clock and that arrived at `at`. */
  hostTime(node: number, at: number, t: number | null): number {
    if (t === null) return at
    const seen = at - t
    const offset = Math.min(this.offsets.get(node) ?? seen, seen)
    this.offsets.set(node, offset)
    return t + offset
  }

  /** The board rebooted: a new clock. */
  newClock(node: number) {
    this.offsets.delete(node)
  }

  /** A role change at host time `at`. */
  roleAt(node: number, coordinator: boolean, at: number) {
    if (coordinator) {
      if (!this.reigns.some((r) => r.node === node && r.to === null)) this.reigns.push({ node, from: at, to: null })
    } else this.end(node, at)
  }

  /** The board stopped holding the role at `at` (a role change, a kill, an exit). */
  end(node: number, at: number) {
    for (const r of this.reigns) if (r.node === node && r.to === null) r.to = Math.max(at, r.from)
  }

  /** Forget reigns that ended before `at`. */
  prune(at: number) {
    this.reigns = this.reigns.filter((r) => r.to === null || r.to > at)
  }

  clear() {
    this.reigns = []
    this.offsets.clear()
  }

  /** Who held the role in [from, to], host ms relative to `origin`: "12 from 33960.2, 11 from 30001.0 to 33977.1". */
  describeBetween(from: number, to: number, origin: number): string {
    const at = (t: number) => (t - origin).toFixed(1)
    return this.reigns
      .filter((r) => r.from < to && (r.to === null || r.to > from))
      .map((r) => `${r.node} from ${at(r.from)}${r.to === null ? "" : ` to ${at(r.to)}`}`)
      .join(", ")
  }

  /** Time in [from, to] during which more than one board held the role, ms. */
  overlapBetween(from: number, to: number): number {
    const edges: [number, number][] = []
    for (const r of this.reigns) {
      const a = Math.max(r.from, from)
      const b = Math.min(r.to ?? to, to)
      if (b > a) edges.push([a, 1], [b, -1])
    }
    // at equal times a reign ends before another begins: a handover is not an overlap
    edges.sort((x, y) => x[0] - y[0] || x[1] - y[1])
    let holders = 0
    let since = 0
    let total = 0
    for (const [t, d] of edges) {
      if (holders > 1) total += t - since
      holders += d
      since = t
    }
    return total
  }
}
