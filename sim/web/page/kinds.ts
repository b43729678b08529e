// Each frame kind's colour, on every diagram and legend (no DOM here: the tests read it in Node).

export const KIND_COLORS: Record<string, string> = {
  ELECTION: "#e8590c",
  OK: "#1c7ed6",
  COORDINATOR: "#2b8a3e",
  REQUEST: "#7048e8",
  TABLE: "#9c36b5",
  UPDATE: "#ae3ec9",
  HEARTBEAT: "#adb5bd",
  ACK: "#0c8599",
  INQUIRY: "#795548",
  ECHO: "#d6336c",
  HANDOVER: "#f59f00",
  RESIGN: "#c92a2a",
  APP: "#5c940d",
}

export function kindColor(kind: string): string {
  return KIND_COLORS[kind] ?? "#495057"
}
