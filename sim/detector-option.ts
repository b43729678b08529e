// The failure-detector option shared by `sim`, `lab`, `node` and the scenario `cluster` line.

import { DETECTOR_NAMES, type DetectorName } from "../src/core/failure-detector"
import { InputError } from "./config/input"

export function parseDetectorName(text: string, where: string): DetectorName {
  if ((DETECTOR_NAMES as string[]).includes(text)) return text as DetectorName
  throw new InputError(`unknown failure detector '${text}'; known: ${DETECTOR_NAMES.join(", ")}`, where)
}
