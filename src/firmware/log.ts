// The board's platform: DeviceScript's clock and console.

import * as ds from "@devicescript/core"
import { boardMac, boardRandom32 } from "./crypto"
import { formatLog, Platform } from "./driver"

export const boardPlatform: Platform = {
    now: () => ds.millis(),
    print: (line: string) => console.log(line),
    makeMac: boardMac,
    random32: boardRandom32,
}

export function log(event: string, fields: string) {
    console.log(formatLog(event, ds.millis(), fields))
}
