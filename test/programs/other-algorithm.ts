// A program that hands in bid-ring, for a lab configured for another algorithm: every board
// reports the mismatch, and the lab stops with its words.
import { startElection } from "electlab"
import { bidRing } from "electlab/algorithms/bid-ring"

await startElection({ algorithm: bidRing })
