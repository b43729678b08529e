// The ring algorithm, handed to startElection({ algorithm: ring }).
export { ringDescriptor as ring } from "../src/core/ring"
