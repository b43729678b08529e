// A board image: the firmware's program running bully, and no other algorithm.
//   npx devs bundle src/images/bully.ts --board <board definition>
import { bullyDescriptor } from "../core/bully"
import { runDemo } from "../demo"

await runDemo(bullyDescriptor)
