import { MAX_NODES } from "../core/limits"

/** Client roles per board, so the largest lab this firmware can join. */
export const MAX_BOARDS = MAX_NODES
