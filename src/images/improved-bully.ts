// A board image: the firmware's program running improved-bully, and no other algorithm.
//   npx devs bundle src/images/improved-bully.ts --board <board definition>
import { improvedBullyDescriptor } from "../core/improved-bully"
import { runDemo } from "../demo"

await runDemo(improvedBullyDescriptor)
