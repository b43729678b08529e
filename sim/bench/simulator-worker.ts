// One timed election in a fresh process (`electlab bench` runs several): a large run
// leaves a heap that slows the next one down, which a user's single run never sees.
import { Algorithm } from "../../src/core/frame"
import { parseAlgorithm } from "../../src/core/algorithms"
import { timeElection } from "./simulator"

const [algorithm, n] = process.argv.slice(2)
timeElection(Algorithm.Bully, 200) // warm up the JIT
const run = timeElection(parseAlgorithm(algorithm), Number(n))
process.stdout.write(JSON.stringify(run) + "\n")
