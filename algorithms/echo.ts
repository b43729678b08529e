// The echo algorithm, handed to startElection({ algorithm: echo }).
export { echoDescriptor as echo } from "../src/core/echo"
