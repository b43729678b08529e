// A board image: the firmware's program running ring, and no other algorithm.
//   npx devs bundle src/images/ring.ts --board <board definition>
import { ringDescriptor } from "../core/ring"
import { runDemo } from "../demo"

await runDemo(ringDescriptor)
