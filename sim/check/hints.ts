// What the check knows of an algorithm's own node fields, read from the hints its module
// declares (src/core/descriptor.ts, CheckHints) through the registry: a new algorithm
// brings its own, and the check names no algorithm.

import type { AckLink } from "../../src/core/ack-link"
import { checkHintsOf } from "../../src/core/algorithms"
import type { CheckHints } from "../../src/core/descriptor"
import type { ElectionNode } from "../../src/core/node"
import { fieldsOf } from "./fields"

/** An algorithm's hints as field names, with the hints the check calls on real nodes. */
export interface FieldHints {
  skipped: string[]
  shared: string[]
  instants: string[]
  /** Field name to its cap. */
  capped: Record<string, number>
  /** The down marks' times, then the marks themselves; empty when none. */
  downSince: string[]
  /** Those two fields' values on a real node; null when none. */
  downSinceOf: ((n: ElectionNode) => [number[], boolean[]]) | null
  /** The oldest age a down mark is hashed with; null when none. */
  downCap: ((n: ElectionNode) => number) | null
  /** Times read only with heartbeats, hashed as their age capped at ageCap; empty when none. */
  aged: string[]
  /** The age those times are capped at; null when none. */
  ageCap: ((n: ElectionNode) => number) | null
  /** The ring's seq fields (last seq, link, seen tags); empty when none. */
  seqs: string[]
  /** Those three fields' values on a real node; null when none. */
  seqsOf: ((n: ElectionNode) => [number, AckLink, number[]]) | null
}

/** The names a hint reads (none for a missing hint). */
function names(read: ((n: ElectionNode) => unknown[]) | undefined): string[] {
  return read ? fieldsOf<ElectionNode>((n) => read(n)) : []
}

/** `capped` reads each field, then gives its cap: [n.count, 2]. */
function capsOf(read: ((n: ElectionNode) => unknown[]) | undefined): Record<string, number> {
  const caps: Record<string, number> = {}
  if (!read) return caps
  const fields = names(read)
  const values = read({} as ElectionNode)
  if (values.length !== 2 * fields.length) throw new Error(`a capped hint gives each field then its cap: ${fields.length} fields, ${values.length} values`)
  fields.forEach((f, i) => {
    const cap = values[2 * i + 1]
    if (typeof cap !== "number") throw new Error(`the cap of ${f} is not a number`)
    caps[f] = cap
  })
  return caps
}

/** A module's hints as names (exported for the tests). */
export function fieldHints(h: CheckHints): FieldHints {
  const hints: FieldHints = {
    skipped: names(h.skipped),
    shared: names(h.shared),
    instants: names(h.instants),
    capped: capsOf(h.capped),
    downSince: names(h.downSince),
    downSinceOf: h.downSince ?? null,
    downCap: h.downCap ?? null,
    aged: names(h.aged),
    ageCap: h.ageCap ?? null,
    seqs: names(h.seqs),
    seqsOf: h.seqs ?? null,
  }
  if (hints.downSince.length !== 0 && (hints.downSince.length !== 2 || !hints.downCap)) throw new Error("downSince names the times and the marks, and needs downCap")
  if (hints.aged.length !== 0 && !hints.ageCap) throw new Error("aged needs ageCap")
  if (hints.seqs.length !== 0 && hints.seqs.length !== 3) throw new Error("seqs names the last seq, the link and the seen tags")
  return hints
}

const byAlgorithm: FieldHints[] = []

/** The hints of wire algorithm number `algorithm`, made once. */
export function hintsOf(algorithm: number): FieldHints {
  return (byAlgorithm[algorithm] ??= fieldHints(checkHintsOf(algorithm)))
}
