// Sizes the whole project shares: the firmware, the lab, the manifest and the campaign.

/** The largest cluster the firmware runs: each board declares one client role per peer (bus.ts). */
export const MAX_NODES = 12
