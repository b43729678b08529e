// The virtual lab with authenticated frames under attack (test/auth-lab.ts) and bid-ring's
// suitability (test/suitability-lab.ts): a file of its own, so that it runs beside
// test/lab.test.ts in \`npm run test:ci\`.
import { authLabSuites } from "./auth-lab"
import { suitabilityLabSuite } from "./suitability-lab"

authLabSuites()
suitabilityLabSuite()
