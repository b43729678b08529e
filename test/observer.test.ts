// The observer and a person's view of a host node: backoff against a missing broker, a
// "heard from" list that forgets nodes that left, errors as sentences.
import { expect, test } from "vitest"
import { freePort } from "../sim/lab/broker"
import { readableLine } from "../sim/node/command"
import { Backoff, HeardFrom, startObserver } from "../sim/node/observe"

test("against a broker that is not there the observer backs off: 0.5, 1, 2 s, not a line every 0.5 s", async () => {
  const lines: string[] = []
  const observer = startObserver({ broker: `mqtt://127.0.0.1:${await freePort()}`, prefix: "electlab", group: 1, print: (l) => lines.push(l) })
  const waitsOf = () => lines.map((l) => /retrying in ([\d.]+) s/.exec(l)?.[1]).filter(Boolean)
  // 3.2 s, and on a busy host until the third retry came (the fifth is due 7.5 s after the first)
  const t0 = Date.now()
  while ((Date.now() - t0 < 3200 || waitsOf().length < 3) && Date.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 50))
  await observer.stop()
  const waits = waitsOf()
  expect(waits.slice(0, 3), lines.join("\n")).toEqual(["0.5", "1.0", "2.0"])
  expect(waits.length, lines.join("\n")).toBeLessThanOrEqual(4)
  expect(lines[0]).toContain("ECONNREFUSED")
})

test("backoff doubles to 8 s and starts over once connected", () => {
  const b = new Backoff()
  expect([b.failed(), b.failed(), b.failed(), b.failed(), b.failed(), b.failed()]).toEqual([500, 1000, 2000, 4000, 8000, 8000])
  b.reset()
  expect(b.failed()).toBe(500)
})

test("'heard from' drops a node on its last will and after a silence", () => {
  const h = new HeardFrom(10_000)
  h.heard(5, 0)
  h.heard(3, 0)
  h.heard(4, 9_000)
  expect(h.list(9_000)).toEqual([3, 4, 5])
  h.left(5)
  expect(h.list(9_500)).toEqual([3, 4])
  expect(h.list(12_000)).toEqual([4])
})

test("a host node's log lines read as sentences", () => {
  const b = "mqtt://127.0.0.1:1883"
  expect(readableLine("EL mqtt t=1500 n=6 state=error msg=ECONNREFUSED", b)).toBe(
    "1.500s cannot reach the broker mqtt://127.0.0.1:1883: connection refused: is the broker running?",
  )
  expect(readableLine("EL role t=20 n=6 r=follower c=5 e=2", b)).toBe("0.020s node 6: follower of 5 (epoch 2)")
  expect(readableLine("EL left t=0 n=6 peer=5", b)).toBe("0.000s node 5 dropped off (last will)")
})
