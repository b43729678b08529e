// One campaign worker process: runs its share of seeds and prints the accumulated cells as JSON.
import { runCells } from "./campaign"

process.stdout.write(JSON.stringify(runCells(JSON.parse(process.argv[2]))))
