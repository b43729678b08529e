/** Client roles per board, so the largest lab this firmware can join. */
export const MAX_BOARDS = 12
