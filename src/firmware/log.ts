// The board's platform: DeviceScript's clock and console.

import * as ds from "@devicescript/core"
import { formatLog, Platform } from "./driver"

export const boardPlatform: Platform = {
    now: () => ds.millis(),
    print: (line: string) => console.log(line),
}

export function log(event: string, fields: string) {
    console.log(formatLog(event, ds.millis(), fields))
}
