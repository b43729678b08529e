// The package's entry for a DeviceScript program: `import { startElection } from "electlab"`.
// The algorithm comes from its own module (`import { bully } from "electlab/algorithms/bully"`),
// so that an image holds only the algorithm it runs; nothing here imports one.
export {
    AppCounters,
    AppMessage,
    compareTokens,
    createElection,
    Duty,
    Election,
    ElectionOptions,
    ElectionState,
    FenceGate,
    FenceToken,
    formatToken,
    Role,
    roleName,
    startElection,
} from "./election"
