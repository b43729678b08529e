// A board image: the firmware's program running echo, and no other algorithm.
//   npx devs bundle src/images/echo.ts --board <board definition>
import { echoDescriptor } from "../core/echo"
import { runDemo } from "../demo"

await runDemo(echoDescriptor)
