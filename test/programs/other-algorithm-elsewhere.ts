// A program that hands in bid-ring chosen in another module (algorithm-choice.ts): its own
// imports do not tell the checks before the build, so the image is built, every board reports
// the mismatch, and the lab stops with the boards' words.
import { startElection } from "electlab"
import { chosen } from "./algorithm-choice"

await startElection({ algorithm: chosen })
