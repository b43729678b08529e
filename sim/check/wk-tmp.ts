import { parentPort, workerData } from "node:worker_threads"
const x: number = workerData.n * 2
parentPort!.postMessage({ x })
