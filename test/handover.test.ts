// The handover (our extension): a higher process that recovers or powers on takes the role
// only after the sitting coordinator stepped down, so two processes never hold it at once.
import { describe, expect, test } from "vitest"
import { ALGORITHMS } from "../src/core/algorithms"
import { type TraceRecord, TraceType } from "../src/core/trace"
import { Algorithm, BROADCAST, Kind, kindName } from "../src/core/frame"
import { type Action, ActionType, Role, TIMER_ALGORITHM, TIMER_HANDOVER, TIMER_WATCH } from "../src/core/contract"
import { frameFrom, makeEngine, makeNode, sends } from "./helpers"
import { summarize } from "../src/core/summary"

const timing = { answerTimeout: 3, coordinatorTimeout: 5, heartbeatInterval: 10, failureTimeout: 25 }
const ids = [1, 2, 3, 4, 5]

/** Runs crash 5, recover 5 with heartbeats on; the time two processes held the role, and the HANDOVERs sent per phase. */
function crashAndRecover(algorithm: number) {
  const engine = makeEngine(algorithm, ids, { timing: { ...timing } })
  const holders = new Set<number>()
  let overlapSince = -1
  let overlap = 0
  const handovers = { crash: 0, recover: 0 }
  let phase: "crash" | "recover" = "crash"
  engine.tracer = (r: TraceRecord) => {
    if (r.type === TraceType.Send && r.frame.kind === Kind.HANDOVER) handovers[phase]++
    if (r.type !== TraceType.RoleChange) return
    if (r.role === Role.Coordinator) holders.add(r.node)
    else holders.delete(r.node)
    if (holders.size > 1 && overlapSince < 0) overlapSince = r.time
    if (holders.size <= 1 && overlapSince >= 0) {
      overlap += r.time - overlapSince
      overlapSince = -1
    }
  }
  engine.start()
  engine.runUntil(50)
  engine.crash(5)
  engine.runUntil(400)
  const afterCrash = summarize(engine).coordinator
  phase = "recover"
  engine.recover(5)
  engine.runUntil(800)
  const s = summarize(engine)
  return { overlap, afterCrash, coordinator: s.coordinator, agreement: s.agreement, violations: s.violations, handovers }
}

describe("handover: a recovered higher process and the sitting coordinator never both lead", () => {
  for (const d of ALGORITHMS)
    test(d.name, () => {
      const r = crashAndRecover(d.algorithm)
      expect(r.afterCrash).toBe(4)
      // a failover after a crash waits for nobody: the old coordinator is known to be down
      expect(r.handovers.crash).toBe(0)
      expect(r.coordinator).toBe(5)
      expect(r.agreement).toBe(true)
      expect(r.violations).toEqual([])
      expect(r.overlap).toBe(0)
    })
})

describe("handover rules (bully)", () => {
  const A = ALGORITHMS[0].algorithm
  const B = Algorithm.ImprovedBully
  function node(id: number) {
    const n = makeNode(A, id, [1, 2, 3])
    Object.assign(n.timing, timing)
    return n
  }

  /** Process 1 of 1..4, following 3 since time 0 (it found 4 down and 3 won). */
  function oneFollowingThree() {
    const n = makeNode(A, 1, [1, 2, 3, 4])
    Object.assign(n.timing, timing)
    n.start(0, [])
    n.suspect(0, [])
    n.receive(frameFrom(A, Kind.COORDINATOR, 3, BROADCAST), 0, [])
    return n
  }

  test("a board powering on as the highest asks everybody, and leads on the sitting coordinator's RESIGN", () => {
    const top = node(3)
    const out: Action[] = []
    top.powerOn(0, out)
    expect(top.role).toBe(Role.Electing)
    // one by name to each, highest first (a freshly booted board is bound to its peers before
    // they are to it): both sends carry one frame, addressed to all (one frame in the heap)
    expect(sends(out)).toEqual(["send HANDOVER 2 (broadcast)", "send HANDOVER 1 (broadcast)"])
    const claims = out.filter((a) => a.type === ActionType.Send)
    expect(new Set(claims.map((a) => (a.type === ActionType.Send ? a.frame : null))).size).toBe(1)
    const handoverTo = (id: number) => {
      const a = out.find((x) => x.type === ActionType.Send && x.to.length === 1 && x.to[0] === id)!
      if (a.type !== ActionType.Send) throw new Error("no send")
      return a.frame
    }
    // the sitting coordinator 2 steps down before it answers
    const sitting = node(2)
    sitting.start(0, [])
    // 3 was down: 2 won (no OK within T)
    sitting.suspect(0, [])
    sitting.timer(2, 3, [])
    expect(sitting.role).toBe(Role.Coordinator)
    const answer: Action[] = []
    sitting.receive(handoverTo(2), 1, answer)
    expect(sitting.role).toBe(Role.Follower)
    expect(sitting.coordinator).toBe(3)
    // to all, naming the claimer: its followers wait for the claimer too
    expect(sends(answer)).toEqual(["send RESIGN 1,3 (broadcast)"])
    const resign = answer.find((a) => a.type === ActionType.Send)!
    if (resign.type !== ActionType.Send) throw new Error("no send")
    expect(resign.frame.initiator).toBe(3)
    // and it waits for the claimer as long as its followers do (failure timeout, T and a period)
    expect(answer.some((a) => a.type === ActionType.SetTimer && a.timer === TIMER_WATCH && a.delay === 38)).toBe(true)
    // a claim to all is answered by all: a follower does not hold the role and says so
    const follower = node(1)
    follower.start(0, [])
    const plain: Action[] = []
    follower.receive(handoverTo(1), 1, plain)
    expect(sends(plain)).toEqual(["send RESIGN 3"])
    expect(follower.coordinator).toBe(3)
    // the claimer leads once everybody answered
    top.receive(frameFrom(A, Kind.RESIGN, 2, 3, { initiator: 3 }), 2, [])
    expect(top.role).toBe(Role.Electing)
    const lead: Action[] = []
    top.receive(frameFrom(A, Kind.RESIGN, 1, 3, { initiator: 3 }), 2, lead)
    expect(top.role).toBe(Role.Coordinator)
    expect(sends(lead)).toEqual(["send HEARTBEAT 1,2 (broadcast)"])
  })

  test("after a power-on, with nobody holding the role, the claimer leads after the failure timeout and T", () => {
    const top = node(3)
    const out: Action[] = []
    top.powerOn(0, out)
    expect(out.some((a) => a.type === ActionType.SetTimer && a.timer === TIMER_HANDOVER && a.delay === 28)).toBe(true)
    top.timer(TIMER_HANDOVER, 28, out)
    expect(top.role).toBe(Role.Coordinator)
  })

  for (const d of ALGORITHMS)
    test(`${d.name}: a board powering on below the highest gives its first coordinator the failure timeout, T and a period`, () => {
      // with a key its first heartbeat waits for a freshness proof: suspecting it at 25 made a
      // restarted board lead for a moment in the lab
      const n = makeNode(d.algorithm, 1, [1, 2, 3])
      Object.assign(n.timing, timing)
      const out: Action[] = []
      n.powerOn(0, out)
      expect(n.role).toBe(Role.Follower)
      expect(n.coordinator).toBe(3)
      const watches = out.filter((a) => a.type === ActionType.SetTimer && a.timer === TIMER_WATCH)
      expect(watches.at(-1)).toMatchObject({ delay: 38 })
      n.timer(TIMER_WATCH, 25, [])
      n.timer(TIMER_WATCH, 37, [])
      expect(n.role).toBe(Role.Follower)
      n.timer(TIMER_WATCH, 38, [])
      expect(n.role).toBe(Role.Electing)
      // the seeds' initial state keeps the plain failure timeout
      const seeded = makeNode(d.algorithm, 1, [1, 2, 3])
      Object.assign(seeded.timing, timing)
      seeded.start(0, [])
      seeded.timer(TIMER_WATCH, 25, [])
      expect(seeded.role).toBe(Role.Electing)
    })

  test("a follower whose coordinator claims the role after a power-on waits for the claim, not only the failure timeout", () => {
    // 3 powers on and claims; 1 follows 3 (the seeds' initial state) and answers at time 1
    const top = node(3)
    const claim: Action[] = []
    top.powerOn(0, claim)
    const toOne = claim.find((a) => a.type === ActionType.Send && a.to.length === 1 && a.to[0] === 1)!
    if (toOne.type !== ActionType.Send) throw new Error("no send")
    const follower = node(1)
    follower.start(0, [])
    const out: Action[] = []
    follower.receive(toOne.frame, 1, out)
    expect(sends(out)).toEqual(["send RESIGN 3"])
    // failure timeout 25, T 3, heartbeat 10: the claimer may be silent until 28; 1 waits until 1 + 25 + 3 + 10
    expect(out.some((a) => a.type === ActionType.SetTimer && a.timer === TIMER_WATCH && a.delay === 38)).toBe(true)
    const early: Action[] = []
    follower.timer(TIMER_WATCH, 27, early)
    expect(follower.role).toBe(Role.Follower)
    expect(early.some((a) => a.type === ActionType.SetTimer && a.timer === TIMER_WATCH && a.delay === 12)).toBe(true)
    // a claimer that never leads is suspected all the same, a period after its claim could end
    follower.timer(TIMER_WATCH, 39, [])
    expect(follower.role).toBe(Role.Electing)
  })

  test("a follower that hears a higher claim waits for it even when the claimer is not its coordinator", () => {
    // 1 follows 3; 4 powers on and claims. 3 resigns to 4 at once, but 4's claim to 1 comes at
    // 20 (its frames queued behind others): 1 must not suspect the silent 3 at 25 and elect
    // while 4 is about to lead.
    const follower = oneFollowingThree()
    expect(follower.coordinator).toBe(3)
    const out: Action[] = []
    follower.receive(frameFrom(A, Kind.HANDOVER, 4, 1, { bid: 4, initiator: BROADCAST }), 20, out)
    expect(sends(out)).toEqual(["send RESIGN 4"])
    expect(out.some((a) => a.type === ActionType.SetTimer && a.timer === TIMER_WATCH && a.delay === 38)).toBe(true)
    follower.timer(TIMER_WATCH, 25, [])
    expect(follower.role).toBe(Role.Follower)
    follower.receive(frameFrom(A, Kind.HEARTBEAT, 4, BROADCAST, { bid: 4, seq: 1 }), 30, [])
    expect(follower.coordinator).toBe(4)
  })

  test("a follower that hears its coordinator resign waits for the claimer, though the claim itself comes late", () => {
    // 1 follows 3; 4 powers on and claims; 3 resigns to 4 at 2, to all. 4's claim to 1 waits
    // (a new board's first frame waits for its freshness proof): 1 must not suspect the silent 3.
    const follower = oneFollowingThree()
    const out: Action[] = []
    expect(follower.receive(frameFrom(A, Kind.RESIGN, 3, BROADCAST, { initiator: 4 }), 2, out)).toBe(true)
    expect(out.some((a) => a.type === ActionType.SetTimer && a.timer === TIMER_WATCH && a.delay === 38)).toBe(true)
    follower.timer(TIMER_WATCH, 25, [])
    expect(follower.role).toBe(Role.Follower)
    follower.receive(frameFrom(A, Kind.HEARTBEAT, 4, BROADCAST, { bid: 4, seq: 1 }), 30, [])
    expect(follower.coordinator).toBe(4)
    // another process's RESIGN, or one to a claimer we are not, moves nothing
    const other = oneFollowingThree()
    expect(other.receive(frameFrom(A, Kind.RESIGN, 2, BROADCAST, { initiator: 4 }), 2, [])).toBe(false)
    other.timer(TIMER_WATCH, 26, [])
    expect(other.role).toBe(Role.Electing)
  })

  test("a claimer counts only the RESIGNs that name it", () => {
    // 3 powers on, hears the sitting 2 and asks it by name; a RESIGN of 2's that names another
    // claimer (2 gave way to a higher one) must not make 3 lead
    const claimer = node(3)
    claimer.powerOn(0, [])
    const byName: Action[] = []
    claimer.receive(frameFrom(A, Kind.HEARTBEAT, 2, BROADCAST, { bid: 2 }), 1, byName)
    expect(sends(byName)).toEqual(["send HANDOVER 2"])
    expect(claimer.receive(frameFrom(A, Kind.RESIGN, 2, BROADCAST, { initiator: 4 }), 2, [])).toBe(false)
    expect(claimer.role).toBe(Role.Electing)
    claimer.receive(frameFrom(A, Kind.RESIGN, 2, BROADCAST, { initiator: 3 }), 3, [])
    expect(claimer.role).toBe(Role.Coordinator)
  })

  /** improved-bully's 3 of 1..4, following 4 by its heartbeat at 1. */
  function threeFollowingFour() {
    const n = makeNode(B, 3, [1, 2, 3, 4])
    Object.assign(n.timing, timing)
    n.start(0, [])
    n.receive(frameFrom(B, Kind.HEARTBEAT, 4, BROADCAST, { bid: 4, seq: 1 }), 1, [])
    return n
  }

  test("an ELECTION while a coordinator above sits is answered, and acted on only if that coordinator is silent T later", () => {
    // improved-bully: 3 follows 4 (heard at 1); 1, its table calling 4 CRASHED, asks 3. The
    // ELECTION may be seconds old: 3 answers OK and checks again T later
    const n = threeFollowingFour()
    const out: Action[] = []
    n.receive(frameFrom(B, Kind.ELECTION, 1, 3), 5, out)
    expect(sends(out)).toEqual(["send OK 1"])
    const news = TIMER_ALGORITHM + 3
    expect(out.some((a) => a.type === ActionType.SetTimer && a.timer === news && a.delay === 3)).toBe(true)
    expect(n.role).toBe(Role.Follower)
    // 4 heard meanwhile: nothing happens
    n.receive(frameFrom(B, Kind.HEARTBEAT, 4, BROADCAST, { bid: 4, seq: 2 }), 7, [])
    const quiet: Action[] = []
    n.timer(news, 8, quiet)
    expect(sends(quiet)).toEqual([])
    expect([n.role, n.coordinator]).toEqual([Role.Follower, 4])
    // asked again at 20 (4 heard at 7 sits); at 23 4 has been silent 16 > 1.5 periods: 3 wins
    n.receive(frameFrom(B, Kind.ELECTION, 1, 3), 20, [])
    expect(n.role).toBe(Role.Follower)
    const won: Action[] = []
    n.timer(news, 23, won)
    expect(n.role).toBe(Role.Coordinator)
    expect(sends(won)).toEqual(["send HEARTBEAT 1,2,4 (broadcast)", "send COORDINATOR 1,2 (broadcast)"])
  })

  test("a claim against a sitting coordinator that outranks us waits a heartbeat period and T for its answer, not T", () => {
    // improved-bully: 3 follows 4 (heard at 1) and elects (it suspected 4 just before 4's
    // heartbeat came); 1, its table calling 4 CRASHED, asks 3, which wins as in the seed and
    // claims from 4. 4 answers with a heartbeat, which at 12 boards came later than T: 3 led
    // beside it for 30 ms. Waiting the failure timeout was too long: those that followed 3's
    // COORDINATOR suspected it first and elected (154 ms of two coordinators).
    const n = threeFollowingFour()
    n.enterElection([])
    const out: Action[] = []
    n.receive(frameFrom(B, Kind.ELECTION, 1, 3), 5, out)
    expect(sends(out)).toContain("send HANDOVER 4")
    expect(out.some((a) => a.type === ActionType.SetTimer && a.timer === TIMER_HANDOVER && a.delay === 13)).toBe(true)
    expect(n.role).toBe(Role.Electing)
    n.receive(frameFrom(B, Kind.HEARTBEAT, 4, BROADCAST, { bid: 4, seq: 2 }), 12, [])
    expect(n.role).toBe(Role.Follower)
    expect(n.coordinator).toBe(4)
  })

  test("a follower whose coordinator resigned suspects the claimer if it never leads, not the one that resigned", () => {
    // improved-bully's 2 of 1..4 follows 3 (4 was down); 4 powers on and claims, 3 resigns to
    // it, and the claim never ends (12 boards, the claimer's VM late). Suspecting 3, 2 asked
    // below 3, found itself and led beside 3, which led again as 4's follower: two coordinators.
    const n = makeNode(B, 2, [1, 2, 3, 4])
    Object.assign(n.timing, timing)
    n.start(0, [])
    n.receive(frameFrom(B, Kind.COORDINATOR, 3, BROADCAST), 1, [])
    n.receive(frameFrom(B, Kind.RESIGN, 3, BROADCAST, { initiator: 4, bid: 4 }), 2, [])
    expect(n.coordinator).toBe(4)
    const out: Action[] = []
    n.timer(TIMER_WATCH, 40, out)
    expect(n.role).toBe(Role.Electing)
    expect(sends(out)).toEqual(["send ELECTION 3"])
  })

  test("a claim against a sitting coordinator ends at once when that coordinator leaves", () => {
    // as above, and 4's last will reaches 3 during the claim (a kill over MQTT): 3 leads now,
    // not after the failure timeout
    const n = threeFollowingFour()
    n.enterElection([])
    n.receive(frameFrom(B, Kind.ELECTION, 1, 3), 5, [])
    expect(n.role).toBe(Role.Electing)
    n.peerLeft(4, 6, [])
    expect(n.role).toBe(Role.Coordinator)
  })

  const handoverTimers = (out: Action[]) => out.flatMap((a) => (a.type === ActionType.SetTimer && a.timer === TIMER_HANDOVER ? [a.delay] : []))

  test("a claimer asks a lower coordinator by name at each of its heartbeats and waits while it is heard, never less than its wait", () => {
    // T 3, H 10, F 25: a powered-on claimer waits F + T = 28 for the claim to all
    const top = node(3)
    top.powerOn(0, [])
    const first: Action[] = []
    top.receive(frameFrom(A, Kind.HEARTBEAT, 2, BROADCAST, { bid: 2 }), 5, first)
    expect(sends(first)).toEqual(["send HANDOVER 2"])
    // 5 + H + T = 18 is inside the wait under way (28): it stands
    expect(handoverTimers(first)).toEqual([])
    // a follower's answer to the claim to all is not the named coordinator's
    top.receive(frameFrom(A, Kind.RESIGN, 1, 3, { initiator: 3 }), 6, [])
    expect(top.role).toBe(Role.Electing)
    // 2 still leads at 20 (our claim has not reached it): asked again, the wait now ends at 33
    const again: Action[] = []
    top.receive(frameFrom(A, Kind.HEARTBEAT, 2, BROADCAST, { bid: 2 }), 20, again)
    expect(sends(again)).toEqual(["send HANDOVER 2"])
    expect(handoverTimers(again)).toEqual([13])
    expect(top.role).toBe(Role.Electing)
    // its RESIGN ends the claim
    top.receive(frameFrom(A, Kind.RESIGN, 2, 3, { initiator: 3 }), 21, [])
    expect(top.role).toBe(Role.Coordinator)
  })

  test("a claimer whose lower coordinator falls silent leads a period and T after its last heartbeat", () => {
    const top = node(3)
    top.powerOn(0, [])
    const out: Action[] = []
    top.receive(frameFrom(A, Kind.HEARTBEAT, 2, BROADCAST, { bid: 2 }), 25, out)
    expect(top.role).toBe(Role.Electing)
    // the wait (0 + 28) is extended to 25 + 13 = 38: the timer fires then
    expect(handoverTimers(out)).toEqual([13])
    top.timer(TIMER_HANDOVER, 38, [])
    expect(top.role).toBe(Role.Coordinator)
  })

  test("a claim from a lower process makes a coordinator reassert itself, not resign", () => {
    const top = node(3)
    top.start(0, [])
    const out: Action[] = []
    top.receive(frameFrom(A, Kind.HANDOVER, 2, BROADCAST, { bid: 2 }), 1, out)
    expect(top.role).toBe(Role.Coordinator)
    expect(sends(out)).toEqual(["send HEARTBEAT 1,2 (broadcast)"])
  })

  test("start (the seeds' initial state) takes the role at once, without a handover", () => {
    const top = node(3)
    const out: Action[] = []
    top.start(0, out)
    expect(top.role).toBe(Role.Coordinator)
    expect(out.some((a) => a.type === ActionType.Send && kindName(a.frame.kind) === "HANDOVER")).toBe(false)
  })

  test("our own broadcast heard back is ignored; a unicast from our own id flags a duplicate", () => {
    const n = node(2)
    n.start(0, [])
    expect(n.receive(frameFrom(A, Kind.HEARTBEAT, 2, BROADCAST, { bid: 2 }), 1, [])).toBe(false)
    expect(n.misconfigured).toBe(false)
    expect(n.receive(frameFrom(A, Kind.ELECTION, 2, 2), 1, [])).toBe(false)
    expect(n.misconfigured).toBe(true)
  })
})
