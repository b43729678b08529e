// The manifest's bid-ring suitability in the virtual lab: the compiled firmware and
// a host node both bid with their board's suitability. Run by test/lab-keys.test.ts.
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { labOptions } from "../sim/lab/command"
import { Lab } from "../sim/lab/lab"

export function suitabilityLabSuite() {
  describe("bid-ring from a manifest: VMs and a host node bid with the boards' suitability", () => {
    // 1 (a VM) bids 5:1, 2 (a host node) 3:2, 3 and 4 (VMs) 0:3 and 0:4: without suitability 4 would lead
    const manifest = join(mkdtempSync(join(tmpdir(), "electlab-")), "devicescript.json")
    writeFileSync(
      manifest,
      JSON.stringify({
        group: 1,
        algorithm: "bid-ring",
        transport: "mqtt",
        mqtt: { broker: "mqtt://127.0.0.1:1883" },
        boards: [
          { name: "a", nodeId: 1, suitability: 5 },
          { name: "b", nodeId: 2, suitability: 3 },
          { name: "c", nodeId: 3 },
          { name: "d", nodeId: 4 },
        ],
      }),
    )
    const options = labOptions({ manifest, transport: "mqtt", hostNodes: "2", loss: "0", delay: "0", seed: "1", auth: false })
    const lab = new Lab(options)

    beforeAll(async () => {
      await lab.start()
    }, 120_000)
    afterAll(async () => {
      await lab.stop()
    })

    test("the most suitable board leads, not the highest id", async () => {
      expect(options.suitability).toEqual([5, 3, 0, 0])
      await lab.waitForAgreement(60_000)
      expect(lab.coordinator()).toBe(1)
      for (const b of lab.liveBoards()) expect(b.coordinator).toBe(1)
    }, 90_000)

    test("killing it: the host node, the next most suitable, takes over", async () => {
      await lab.kill(1)
      await lab.waitForAgreement(30_000)
      expect(lab.coordinator()).toBe(2)
      for (const b of lab.liveBoards()) expect(b.coordinator).toBe(2)
    }, 60_000)
  })
}
