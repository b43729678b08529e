// Firmware entry (placeholder until the firmware issue brings the bus transport, LED and
// button): it links the whole core into the board image so that `devs build` proves it
// compiles for the boards, and logs the node's initial role.
import { createNode } from "./core/algorithms"
import { Algorithm } from "./core/frame"
import { idealTiming, roleName } from "./core/node"

const node = createNode(Algorithm.ImprovedBully, { id: 1, ids: [1, 2, 3], group: 1, timing: idealTiming() })
node.start(0, [])
console.log("electlab: node " + node.id + " " + roleName(node.role) + " of " + node.coordinator)
