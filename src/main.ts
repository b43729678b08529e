// The firmware's program (src/demo.ts) with the algorithm its build provides: the virtual
// lab compiles its configuration in before it. A board's image is one of src/images/,
// which names its algorithm, so that the image carries that one only.
import { runDemo } from "./demo"

await runDemo()
