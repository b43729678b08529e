// The bully algorithm, handed to startElection({ algorithm: bully }).
export { bullyDescriptor as bully } from "../src/core/bully"
