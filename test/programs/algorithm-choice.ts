// The algorithm other-algorithm-elsewhere.ts hands in, chosen in a module of its own.
export { bidRing as chosen } from "electlab/algorithms/bid-ring"
