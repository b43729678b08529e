// A board image: the firmware's program running active-list-ring, and no other algorithm.
//   npx devs bundle src/images/active-list-ring.ts --board <board definition>
import { activeListRingDescriptor } from "../core/active-list-ring"
import { runDemo } from "../demo"

await runDemo(activeListRingDescriptor)
