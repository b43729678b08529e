// A program that hands in bid-ring, for a lab configured for another algorithm: its imports
// tell, so the lab names the mismatch before it builds anything.
import { startElection } from "electlab"
import { bidRing } from "electlab/algorithms/bid-ring"

await startElection({ algorithm: bidRing })
