import { describe as group, expect, test } from "vitest"
import { Algorithm, Kind } from "../src/core/frame"
import { type Action, Role, TIMER_ALGORITHM, TIMER_CONTEST, TIMER_DEADLINE, TIMER_OTHER_ALGORITHM, MAX_TIMERS } from "../src/core/contract"
import { describe, frameFrom, makeNode, sends } from "./helpers"

const A = Algorithm.Bully
const T_ANSWER = TIMER_ALGORITHM
const T_COORDINATOR = TIMER_ALGORITHM + 1
const ids = [1, 2, 3, 4, 5]

function started(id: number) {
  const node = makeNode(A, id, ids)
  node.start(0, [])
  return node
}

group("bully rules", () => {
  test("noticing the failure: ELECTION to every higher process, then wait T", () => {
    const n = started(2)
    const out: Action[] = []
    n.suspect(0, out)
    // the election deadline: 2(T + T') = 16, plus a jitter of up to half of it
    expect(describe(out)).toEqual([
      "role electing 5",
      expect.stringMatching(new RegExp(`^set ${TIMER_DEADLINE} \\+(1[6-9]|2[0-4])$`)),
      "send ELECTION 3,4,5 (broadcast)",
      `set ${T_ANSWER} +3`,
    ])
    expect(n.role).toBe(Role.Electing)
  })

  test("no OK within T: coordinator, COORDINATOR to every lower process", () => {
    const n = started(4)
    n.suspect(0, [])
    const out: Action[] = []
    n.timer(T_ANSWER, 3, out)
    expect(sends(out)).toEqual(["send COORDINATOR 1,2,3 (broadcast)"])
    expect(n.role).toBe(Role.Coordinator)
    expect(n.coordinator).toBe(4)
    expect(n.epoch).toBe(1)
  })

  test("an OK stops the election and waits T' for COORDINATOR", () => {
    const n = started(2)
    n.suspect(0, [])
    const out: Action[] = []
    expect(n.receive(frameFrom(A, Kind.OK, 4, 2), 2, out)).toBe(true)
    expect(describe(out)).toEqual([`cancel ${T_ANSWER}`, `set ${T_COORDINATOR} +5`])
    // a second OK changes nothing
    const again: Action[] = []
    expect(n.receive(frameFrom(A, Kind.OK, 3, 2), 2, again)).toBe(false)
    expect(again).toEqual([])
  })

  test("OK but no COORDINATOR within T': the election restarts", () => {
    const n = started(2)
    n.suspect(0, [])
    n.receive(frameFrom(A, Kind.OK, 4, 2), 2, [])
    const out: Action[] = []
    n.timer(T_COORDINATOR, 7, out)
    expect(sends(out)).toEqual(["send ELECTION 3,4,5 (broadcast)"])
  })

  test("an ELECTION from a lower process: OK back, then an election of its own", () => {
    const n = started(3)
    const out: Action[] = []
    n.receive(frameFrom(A, Kind.ELECTION, 1, 3), 1, out)
    expect(sends(out)).toEqual(["send OK 1", "send ELECTION 4,5 (broadcast)"])
  })

  test("a process already holding an election answers OK but starts no second one", () => {
    const n = started(3)
    n.suspect(0, [])
    const out: Action[] = []
    n.receive(frameFrom(A, Kind.ELECTION, 2, 3), 1, out)
    expect(sends(out)).toEqual(["send OK 2"])
  })

  test("an ELECTION from a higher process is ignored and counted", () => {
    const n = started(2)
    const out: Action[] = []
    expect(n.receive(frameFrom(A, Kind.ELECTION, 4, 2), 1, out)).toBe(false)
    expect(out).toEqual([])
    expect(n.ignored.reduce((a, b) => a + b)).toBe(1)
  })

  test("COORDINATOR from a higher process is recorded and ends any wait", () => {
    const n = started(2)
    n.suspect(0, [])
    n.receive(frameFrom(A, Kind.OK, 4, 2), 2, [])
    const out: Action[] = []
    n.receive(frameFrom(A, Kind.COORDINATOR, 4, 2, { epoch: 1 }), 3, out)
    expect(describe(out)).toEqual([`cancel ${T_COORDINATOR}`, "role follower 4", `cancel ${TIMER_DEADLINE}`, `cancel ${TIMER_CONTEST}`])
    expect(n.coordinator).toBe(4)
    expect(n.epoch).toBe(1)
  })

  test("COORDINATOR from a lower process makes a live higher one bully back", () => {
    const n = started(4)
    const out: Action[] = []
    n.receive(frameFrom(A, Kind.COORDINATOR, 2, 4), 3, out)
    expect(sends(out)).toEqual(["send ELECTION 5"])
  })

  test("a recovered process holds an election; the highest wins at once", () => {
    const low = started(2)
    low.crash(0, [])
    const out: Action[] = []
    low.recover(5, out)
    expect(sends(out)).toEqual(["send ELECTION 3,4,5 (broadcast)"])

    const top = started(5)
    top.crash(0, [])
    const topOut: Action[] = []
    top.recover(5, topOut)
    expect(sends(topOut)).toEqual(["send COORDINATOR 1,2,3,4 (broadcast)"])
    expect(top.role).toBe(Role.Coordinator)
  })

  test("the highest process, already coordinator, answers a late ELECTION with OK and COORDINATOR to the asker", () => {
    const top = started(5)
    const out: Action[] = []
    top.receive(frameFrom(A, Kind.ELECTION, 2, 5), 3, out)
    expect(sends(out)).toEqual(["send OK 2", "send COORDINATOR 2"])
  })

  test("a crashed process ignores frames and its timers, and cancels them all when it crashes", () => {
    const n = started(3)
    n.suspect(0, [])
    const crashOut: Action[] = []
    n.crash(1, crashOut)
    expect(describe(crashOut).filter((s) => s.startsWith("cancel")).length).toBe(MAX_TIMERS)
    const out: Action[] = []
    expect(n.receive(frameFrom(A, Kind.ELECTION, 1, 3), 2, out)).toBe(false)
    n.timer(T_ANSWER, 3, out)
    expect(out).toEqual([])
  })

  test("frames of another group or another algorithm are not acted on", () => {
    const n = started(3)
    const out: Action[] = []
    expect(n.receive(frameFrom(A, Kind.ELECTION, 1, 3, { group: 9 }), 1, out)).toBe(false)
    expect(out).toEqual([])
    expect(n.receive(frameFrom(Algorithm.ImprovedBully, Kind.ELECTION, 1, 3), 1, out)).toBe(false)
    expect(n.misconfigured).toBe(true)
    expect(n.role).toBe(Role.Misconfigured)
  })

  test("another algorithm is a hint, not a verdict: misconfigured while its frames come, then back in the election", () => {
    const n = started(3)
    // ideal timing: 4 × max(failure timeout 0, T' 5)
    const quiet = `set ${TIMER_OTHER_ALGORITHM} +20`
    const first: Action[] = []
    n.receive(frameFrom(Algorithm.Ring, Kind.ELECTION, 1, 3), 1, first)
    expect(describe(first)).toEqual(["role misconfigured 5", quiet])
    const again: Action[] = []
    n.receive(frameFrom(Algorithm.Ring, Kind.HEARTBEAT, 5, 3), 15, again)
    expect(describe(again)).toEqual([quiet])
    expect(n.role).toBe(Role.Misconfigured)
    // quiet since 15: timers afresh, and an election as after a recovery (bully: ELECTION to the higher)
    const back: Action[] = []
    n.timer(TIMER_OTHER_ALGORITHM, 35, back)
    expect(n.misconfigured).toBe(false)
    expect(n.role).toBe(Role.Electing)
    expect(describe(back).filter((a) => a.startsWith("cancel")).length).toBe(MAX_TIMERS)
    expect(sends(back)).toEqual(["send ELECTION 4,5 (broadcast)"])
    expect(n.ignored[1]).toBe(2)
  })

  test("a lasting sign meanwhile (our own id) keeps the node misconfigured; a crash forgets the hint", () => {
    const dup = started(3)
    dup.receive(frameFrom(Algorithm.Ring, Kind.ELECTION, 1, 3), 1, [])
    dup.receive(frameFrom(A, Kind.ELECTION, 3, 3), 2, [])
    dup.timer(TIMER_OTHER_ALGORITHM, 30, [])
    expect(dup.role).toBe(Role.Misconfigured)
    const crashed = started(3)
    crashed.receive(frameFrom(Algorithm.Ring, Kind.ELECTION, 1, 3), 1, [])
    crashed.crash(2, [])
    crashed.recover(3, [])
    expect(crashed.misconfigured).toBe(false)
    expect(crashed.role).toBe(Role.Electing)
  })

  test("a frame carrying our own id as source flags a duplicate id", () => {
    const n = started(3)
    const out: Action[] = []
    expect(n.receive(frameFrom(A, Kind.ELECTION, 3, 3), 1, out)).toBe(false)
    expect(n.misconfigured).toBe(true)
  })

  test("frames for another process, or from an unknown one, are not acted on", () => {
    const n = started(3)
    const out: Action[] = []
    expect(n.receive(frameFrom(A, Kind.ELECTION, 1, 4), 1, out)).toBe(false)
    expect(n.receive(frameFrom(A, Kind.ELECTION, 9, 3), 1, out)).toBe(false)
    expect(out).toEqual([])
  })
})
