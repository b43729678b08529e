// The improved-bully algorithm, handed to startElection({ algorithm: improvedBully }).
export { improvedBullyDescriptor as improvedBully } from "../src/core/improved-bully"
