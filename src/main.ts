// Firmware entry: read this board's settings and take part in the election.
import { runFirmware } from "./firmware/run"
import { readFirmwareConfig } from "./firmware/settings"

await runFirmware(await readFirmwareConfig())
