// The active-list-ring algorithm, handed to startElection({ algorithm: activeListRing }).
export { activeListRingDescriptor as activeListRing } from "../src/core/active-list-ring"
