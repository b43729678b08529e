// A frame for several processes goes to all of them on the firmware's bus and broker (one
// broadcast): the processes it was not for must decide as when only its destinations get it.
import { describe, expect, test } from "vitest"
import { Algorithm, MAX_ALGORITHM } from "../src/core/frame"
import { Role } from "../src/core/contract"
import { range, startEngine } from "./helpers"

const ids = range(1, 12)

/** Every role change, in order, after 12 (the coordinator) crashes and `detect` notice. */
function roleChanges(algorithm: Algorithm, sharedMedium: boolean, detect: number[]): string[] {
  const e = startEngine(algorithm, ids, { sharedMedium })
  const changes: string[] = []
  e.roleObserver = (node, role, coordinator) => changes.push(`t=${e.now} ${node} ${Role[role]} ${coordinator}`)
  e.crash(12)
  for (const id of detect) e.detect(id)
  expect(e.settle(50_000_000)).toBe(true)
  return changes
}

describe("one frame for several, delivered to all", () => {
  for (let a = 1; a <= MAX_ALGORITHM; a++) {
    for (const detect of [[1], [1, 5, 9], range(1, 11)]) {
      test(`${Algorithm[a]}: 12 processes, 12 crashed, ${detect.length} notice: the same role changes`, () => {
        const alone = roleChanges(a, false, detect)
        expect(alone.at(-1)).toMatch(/ 11$/)
        expect(roleChanges(a, true, detect)).toEqual(alone)
      })
    }
  }
})
