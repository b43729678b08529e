// The bid-ring algorithm, handed to startElection({ algorithm: bidRing }).
export { bidRingDescriptor as bidRing } from "../src/core/bid-ring"
