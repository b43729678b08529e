// The test tiers (docs/benchmarks.md, "Test tiers"). Most files belong to one tier by their
// place in vitest.config.ts; the few that span tiers import `test` from here (it is the fast
// tier's) and mark their longer tests `mediumTest` or `slowTest`. vitest.config.ts runs such a
// file in each tier's project with ELECTLAB_TIER set, so each of its tests runs in one tier.
import { test as vitestTest } from "vitest"

export type Tier = "fast" | "medium" | "slow"

const current = process.env.ELECTLAB_TIER
if (current !== undefined && !["fast", "medium", "slow"].includes(current)) throw new Error(`ELECTLAB_TIER: unknown tier '${current}'`)

/** A test of `tier`; with `also` false it is skipped in every tier. Outside a tier's project (ELECTLAB_TIER unset) every tier runs. */
export function tierTest(tier: Tier, also = true) {
  return vitestTest.runIf((current === undefined || current === tier) && also)
}

/** `npm run test:fast` (and so `npm test`). */
export const test = tierTest("fast")
/** `npm test`: CLI processes, searches of tens of thousands of states at N = 3, a small campaign. */
export const mediumTest = tierTest("medium")
/** `npm run test:ci`: the longer searches and campaigns. */
export const slowTest = tierTest("slow")

/** The most states a search in the fast tier visits. */
export const FAST_STATES = 5_000

/**
 * The tier of an exhaustive search by its size: up to FAST_STATES in the fast tier, more at
 * N = 3 in `npm test`, more at N = 4 and 5 in CI.
 */
export function searchTier(states: number, nodes = 3): Tier {
  return states <= FAST_STATES ? "fast" : nodes <= 3 ? "medium" : "slow"
}
