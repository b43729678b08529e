// `electlab view`: the core's engine runs here, in the page. Every move re-runs the scenario
// from its seed with the user's interventions up to the step shown (rewind = re-run).

import { descriptorNamed } from "../../../src/core/algorithms"
import { replayScenario, replayShiviz } from "../export"
import {
  countsUpTo,
  customScenario,
  inFlight,
  type Intervention,
  type ReplayMessage,
  type ReplayRun,
  type ReplaySource,
  runReplay,
  traceUpTo,
} from "../replay"
import { download, h, replace, s } from "./dom"
import { kindColor, kindLegend, largeTypeToggle, paintLeds, roleColor } from "./look"

export interface PageConfig {
  algorithms: string[]
  scenarios: { name: string; file: string }[]
  files: Record<string, string>
}

interface State {
  source: ReplaySource
  interventions: Intervention[]
  /** The whole run with the current interventions: its length and summary. */
  full: ReplayRun
  /** The run re-done from the seed up to `pos`. */
  run: ReplayRun
  pos: number
  showHeartbeats: boolean
  playing: ReturnType<typeof setInterval> | null
}

export function startReplay(root: HTMLElement, config: PageConfig) {
  ;(globalThis as { ELECTLAB_FILES?: Record<string, string> }).ELECTLAB_FILES = config.files
  const params = new URLSearchParams(location.search)
  const sourceOf = (name: string): ReplaySource | null => {
    const sc = config.scenarios.find((x) => x.name === name)
    return sc ? { name: sc.name, text: config.files[sc.file], file: sc.file } : null
  }
  const first = params.has("algorithm")
    ? customScenario(params.get("algorithm")!, Number(params.get("n") ?? 5), params.get("topology") ?? undefined)
    : sourceOf(params.get("scenario") ?? "tanenbaum-bully") ?? sourceOf("tanenbaum-bully")!
  /** The address names what is shown: the form's values, or the scenario; the look's settings stay. */
  const follow = (values: Record<string, string>) => {
    const p = new URLSearchParams()
    for (const [k, v] of Object.entries(values)) p.set(k, v)
    const now = new URLSearchParams(location.search)
    for (const keep of ["large", "led"]) if (now.has(keep)) p.set(keep, now.get(keep)!)
    history.replaceState(null, "", `?${p.toString().replace(/%3A/g, ":")}`)
  }
  const st = {} as State
  st.showHeartbeats = false
  st.playing = null

  const load = (source: ReplaySource, pos?: number) => {
    st.source = source
    st.interventions = []
    st.full = runReplay(source)
    goTo(pos ?? st.full.steps.length - 1)
  }
  const rerun = (pos: number) => {
    st.full = runReplay(st.source, st.interventions)
    goTo(pos)
  }
  const last = () => Math.max(0, st.full.steps.length - 1)
  const goTo = (pos: number) => {
    st.pos = Math.max(0, Math.min(pos, last()))
    st.run = runReplay(st.source, st.interventions, st.pos)
    render()
  }
  /** Acting at an earlier step discards the interventions after it (a new branch). */
  const intervene = (i: Intervention) => {
    st.interventions = st.interventions.filter((x) => x.atStep <= st.pos)
    st.interventions.push(i)
  }
  const toggleProcess = (id: number) => {
    const p = st.run.steps[st.pos]?.processes.find((x) => x.id === id)
    if (!p) return
    intervene({ kind: p.role === "crashed" ? "recover" : "crash", node: id, atStep: st.pos })
    rerun(st.pos + 1)
  }
  const drop = (m: ReplayMessage) => {
    intervene({ kind: "drop", message: m.index, atStep: st.pos })
    rerun(st.pos)
  }
  const play = () => {
    if (st.playing) {
      clearInterval(st.playing)
      st.playing = null
      render()
      return
    }
    if (st.pos >= last()) goTo(0)
    st.playing = setInterval(() => {
      if (st.pos >= last()) {
        clearInterval(st.playing!)
        st.playing = null
        render()
      } else goTo(st.pos + 1)
    }, 600)
    render()
  }

  // ---- controls that persist across renders ----
  const scenarioSelect = h(
    "select",
    { id: "scenario", onchange: () => {
      const v = (scenarioSelect as HTMLSelectElement).value
      if (v) {
        follow({ scenario: v })
        load(sourceOf(v)!)
      }
    } },
    h("option", { value: "" }, "— a golden scenario —"),
    config.scenarios.map((sc) => h("option", { value: sc.name }, sc.name)),
  ) as HTMLSelectElement
  // the form: a change re-runs at once and the address follows it
  const algorithmSelect = h("select", { id: "algorithm", onchange: () => custom() },
    config.algorithms.map((a) => h("option", { value: a }, a))) as HTMLSelectElement
  const nInput = h("input", { id: "n", type: "number", min: 2, max: 40, value: 6, style: "width:4em", onchange: () => custom() }) as HTMLInputElement
  const topologies = ["complete", "ring", "grid:2x3", "grid:3x3"]
  const wanted = params.get("topology")
  if (wanted && !topologies.includes(wanted)) topologies.push(wanted)
  const topologySelect = h(
    "select",
    { id: "topology", title: "echo only", onchange: () => custom() },
    topologies.map((t) => h("option", { value: t }, t)),
  ) as HTMLSelectElement
  if (params.has("algorithm")) {
    algorithmSelect.value = params.get("algorithm")!
    nInput.value = String(Number(params.get("n") ?? 5))
    if (wanted) topologySelect.value = wanted
  }
  const custom = () => {
    const alg = algorithmSelect.value
    const n = Math.max(2, Math.min(40, Number(nInput.value) || 5))
    nInput.value = String(n)
    const topo = descriptorNamed(alg)?.usesGraph ? topologySelect.value : undefined
    follow({ algorithm: alg, n: String(n), ...(topo ? { topology: topo } : {}) })
    scenarioSelect.value = ""
    load(customScenario(alg, n, topo), 0)
  }
  const slider = h("input", { id: "slider", type: "range", min: 0, value: 0, oninput: () => goTo(Number(slider.value)) }) as HTMLInputElement

  const boardsEl = h("div", { class: "boards", id: "boards" })
  const statusEl = h("div", { class: "status" })
  const diagramEl = h("div", { class: "diagram", id: "diagram" })
  const legendEl = h("div", { id: "legend" })
  const traceEl = h("pre", { class: "trace", id: "trace" })
  const stepLabel = h("span", { id: "step" })
  const playButton = h("button", { id: "play", onclick: play }, "▶ play")

  replace(
    root,
    h("header", {}, h("h1", {}, "ElectLab"), h("span", { class: "mode" }, "replay · the core's engine running in this page"), largeTypeToggle(() => render())),
    h(
      "section",
      { class: "controls" },
      h("label", {}, "scenario ", scenarioSelect),
      h("span", { class: "or" }, "or"),
      h("label", {}, "algorithm ", algorithmSelect),
      h("label", {}, "n ", nInput),
      h("label", {}, "topology ", topologySelect),
      h("button", { id: "run-custom", onclick: custom }, "run"),
    ),
    h(
      "section",
      { class: "controls" },
      h("button", { id: "rewind", title: "back to the start (re-run from the seed)", onclick: () => goTo(0) }, "|◀ rewind"),
      h("button", { id: "back", onclick: () => goTo(st.pos - 1) }, "◀ step back"),
      playButton,
      h("button", { id: "forward", onclick: () => goTo(st.pos + 1) }, "step ▶"),
      h("button", { id: "end", onclick: () => goTo(last()) }, "end ▶|"),
      slider,
      stepLabel,
      h("label", {}, h("input", { type: "checkbox", id: "heartbeats", onchange: (e: Event) => {
        st.showHeartbeats = (e.target as HTMLInputElement).checked
        render()
      } }), " heartbeats"),
      h("button", { id: "export-scenario", onclick: () =>
        download(`${st.source.name}-replay.txt`, replayScenario(st.source, st.full, st.interventions)) }, "export scenario"),
      h("button", { id: "export-shiviz", onclick: () =>
        download(`${st.source.name}-shiviz.log`, replayShiviz(st.run, st.pos)) }, "export ShiViz log"),
    ),
    statusEl,
    h("p", { class: "hint" }, "Click a process to crash or recover it now; click a dashed arrow (a message in flight) to drop it. Every step re-runs from the seed."),
    boardsEl,
    legendEl,
    diagramEl,
    traceEl,
    h("textarea", { id: "export-text", hidden: true, readonly: true, rows: 8 }),
  )

  const render = () => {
    const run = st.run
    const pos = st.pos
    const step = run.steps[pos]
    slider.max = String(last())
    slider.value = String(pos)
    stepLabel.textContent = `step ${pos}/${last()} · t=${step ? formatT(step.time) : 0}`
    playButton.textContent = st.playing ? "⏸ pause" : "▶ play"
    scenarioSelect.value = config.scenarios.some((x) => x.name === st.source.name) ? st.source.name : ""
    // status: counts so far, the winner, the run's summary and the golden file's
    const counts = countsUpTo(run, pos)
    const countText = Object.entries(counts).filter(([k]) => k !== "HEARTBEAT").map(([k, v]) => `${k} ${v}`).join(", ") || "none yet"
    const procs = step?.processes ?? []
    const coords = procs.filter((p) => p.role === "coordinator").map((p) => p.id)
    const header = st.source.text.split("\n").filter((l) => l.startsWith("#")).map((l) => l.replace(/^#\s?/, "")).join(" ")
    const winner = coords.length === 1 ? String(coords[0]) : coords.length ? coords.join(" and ") : "none"
    replace(
      statusEl,
      h("div", { class: "title" }, h("b", {}, st.source.name), " · ", st.full.algorithm, " · ", procs.length, " processes",
        st.interventions.length ? ` · ${st.interventions.length} intervention(s) of yours` : ""),
      header ? h("div", { class: "textbook", id: "textbook" }, "The example: ", header) : null,
      h("div", { class: "ours" },
        "So far: ", h("span", { id: "counts" }, countText), " · coordinator ", h("b", { id: "winner" }, winner)),
      st.full.summaries.map((sm) =>
        h("div", { class: "summary" },
          "This run: ", h("code", { class: "summary-line" }, sm.actual),
          sm.expected === null ? null : sm.expected === sm.actual
            ? h("span", { class: "ok" }, " ✓ same as the golden file")
            : h("span", { class: "bad" }, " ≠ golden file: ", h("code", {}, sm.expected)))),
      st.full.error ? h("div", { class: "bad", id: "error" }, st.full.error) : null,
    )
    // processes
    replace(
      boardsEl,
      procs.map((p) =>
        h("div", { class: `board role-${p.role}`, "data-node": p.id, "data-role": p.role, "data-coordinator": p.coordinator,
          title: p.role === "crashed" ? "click: recover now" : "click: crash now", onclick: () => toggleProcess(p.id) },
          h("div", { class: "led", "data-role": p.role }),
          h("div", { class: "id" }, `P${p.id}`),
          h("div", { class: "role" }, p.role),
          h("div", { class: "small" }, p.role === "crashed" ? "" : `coord ${p.coordinator < 0 ? "?" : p.coordinator} · epoch ${p.epoch}`))),
    )
    replace(diagramEl, diagram(run, pos, st.showHeartbeats, drop))
    replace(legendEl, kindLegend(run.messages.filter((m) => st.showHeartbeats || !m.heartbeat).map((m) => m.kind), "replay-legend"))
    replace(traceEl, traceUpTo(run, pos).join("\n"))
    traceEl.scrollTop = traceEl.scrollHeight
    paintLeds()
  }

  const initialStep = params.get("step")
  load(first, initialStep === null ? undefined : Number(initialStep))
}

function formatT(t: number): string {
  return Number.isInteger(t) ? String(t) : t.toFixed(2)
}

/** Time-space diagram: one lane per process, one arrow per message copy, coloured by kind. */
function diagram(run: ReplayRun, pos: number, heartbeats: boolean, drop: (m: ReplayMessage) => void): SVGElement {
  const ids = [...run.ids].sort((a, b) => b - a)
  const steps = run.steps.slice(0, pos + 1)
  const now = steps.length ? steps[steps.length - 1].time : 0
  const msgs = run.messages.filter((m) => m.sentStep <= pos && (heartbeats || !m.heartbeat))
  const flying = new Set(inFlight(run, pos).map((m) => m.index))
  const end = Math.max(now, ...msgs.map((m) => (m.arriveAt >= 0 ? m.arriveAt : m.sentAt))) || 1
  const left = 50
  const width = Math.max(700, Math.min(4000, end * 60 + 120))
  const lane = 34
  const height = ids.length * lane + 30
  const x = (t: number) => left + (t / end) * (width - left - 40)
  const y = (id: number) => 20 + ids.indexOf(id) * lane
  const parts: SVGElement[] = []
  // lanes coloured by role over time
  for (const id of ids) {
    parts.push(s("text", { x: 8, y: y(id) + 4, class: "lane-label" }, `P${id}`))
    parts.push(s("line", { x1: left, x2: width - 20, y1: y(id), y2: y(id), class: "lane" }))
    for (let i = 0; i < steps.length; i++) {
      const p = steps[i].processes.find((q) => q.id === id)
      if (!p || p.role === "follower") continue
      const t1 = i + 1 < steps.length ? steps[i + 1].time : now
      parts.push(s("line", { x1: x(steps[i].time), x2: Math.max(x(t1), x(steps[i].time) + 3), y1: y(id), y2: y(id),
        stroke: roleColor(p.role), "stroke-width": 6, "stroke-opacity": 0.55 }))
    }
  }
  // time grid
  const tick = end <= 20 ? 1 : Math.pow(10, Math.floor(Math.log10(end / 5)))
  for (let t = 0; t <= end; t += tick)
    parts.push(s("text", { x: x(t), y: height - 4, class: "tick" }, formatT(t)))
  for (const m of msgs) {
    const inFlightNow = flying.has(m.index)
    const arrive = m.lost ? (m.sentAt + (m.arriveAt >= 0 ? m.arriveAt : m.sentAt + (end > 20 ? end / 40 : 0.5))) / 2 : m.arriveAt
    const tEnd = m.lost ? m.sentAt + Math.max(0.3, end / 40) : arrive
    const x2 = x(tEnd)
    const y2 = m.lost ? (y(m.src) + y(m.dst)) / 2 : y(m.dst)
    const color = kindColor(m.kind)
    const cls = `arrow kind-${m.kind}${inFlightNow ? " in-flight" : ""}${m.lost ? " lost" : ""}`
    const title = `${m.src} → ${m.dst} ${m.kind} sent t=${formatT(m.sentAt)}` +
      (m.lost ? (m.droppedByUser ? " · dropped by you" : " · lost") : inFlightNow ? " · in flight: click to drop it" : ` · arrived t=${formatT(m.arriveAt)}`)
    parts.push(s("line", { x1: x(m.sentAt), y1: y(m.src), x2, y2, stroke: color, "stroke-width": inFlightNow ? 3 : 1.6,
      "stroke-dasharray": inFlightNow ? "6 4" : undefined, "marker-end": m.lost ? undefined : `url(#head-${m.kind})`,
      class: cls, "data-kind": m.kind, "data-index": m.index, "data-src": m.src, "data-dst": m.dst,
      onclick: inFlightNow ? () => drop(m) : undefined }, s("title", {}, title)))
    if (inFlightNow) // a wide invisible line makes the arrow easy to hit
      parts.push(s("line", { x1: x(m.sentAt), y1: y(m.src), x2, y2, stroke: "transparent", "stroke-width": 12, class: "hit",
        "data-index": m.index, onclick: () => drop(m) }, s("title", {}, title)))
    if (m.lost) parts.push(s("text", { x: x2 - 4, y: y2 + 4, class: "cross", fill: color }, "✕"))
  }
  parts.push(s("line", { x1: x(now), x2: x(now), y1: 6, y2: height - 16, class: "now" }))
  const kinds = [...new Set(run.messages.map((m) => m.kind))]
  const defs = s("defs", {}, kinds.map((k) =>
    s("marker", { id: `head-${k}`, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
      s("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: kindColor(k) }))))
  return s("svg", { width, height: height + 4, class: "tsd", "data-now": now }, defs, parts)
}
