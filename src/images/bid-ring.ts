// A board image: the firmware's program running bid-ring, and no other algorithm.
//   npx devs bundle src/images/bid-ring.ts --board <board definition>
import { bidRingDescriptor } from "../core/bid-ring"
import { runDemo } from "../demo"

await runDemo(bidRingDescriptor)
