// The live view of the virtual lab: the boards with their LEDs, a time-space diagram fed by
// the tap at the bus hub (or the broker), failovers, and the clicks that act on the boards.

import { type LiveAction, type LogEvent, liveScenario, shivizLog } from "../export"
import type { Transition } from "../../lab/lab"
import type { TappedFrame } from "../tap"
import { download, h, replace, s } from "./dom"
import { KIND_COLORS, kindColor, paintLeds } from "./look"

interface Board {
  node: number
  powered: boolean
  booted: boolean
  role: string
  coordinator: number
  epoch: number
  tx: number
  rx: number
}

/** The lab's transitions as the state endpoint sends them (a type only: nothing of the lab is bundled). */
type Failover = Pick<Transition, "trigger" | "startedAt" | "coordinatorBefore" | "coordinatorAfter" | "durationMs" | "electionFrames" | "busFrames">

interface Hello {
  algorithm: string
  ids: number[]
  transport: "bus" | "mqtt"
  timing: { answerTimeout: number; coordinatorTimeout: number; heartbeatInterval: number; failureTimeout: number }
  slow: boolean
  slowFactor: number
  hostNodes: number[]
}

interface LiveState {
  now: number
  boards: Board[]
  agreement: { agreed: boolean; coordinator: number | null }
  failovers: Failover[]
  log: { at: number; text: string }[]
  hub: { loss: number; delayMs: number; frames: number; dropped: number }
  dropNext: { src: number; dst: number } | null
  actions: LiveAction[]
  slow: boolean
  busy: boolean
}

const WINDOWS_MS = [1000, 3000, 12_000, 60_000]

export function startLive(root: HTMLElement) {
  let hello: Hello | null = null
  let state: LiveState | null = null
  const frames: TappedFrame[] = []
  let showHeartbeats = false
  let paused = false
  let windowMs = 3000
  /** Page receipt minus tap time, ms, per frame (same machine, same clock). */
  const delays: number[] = []
  let message = ""

  const post = async (body: object) => {
    const res = await fetch("/api/live/action", { method: "POST", body: JSON.stringify(body) })
    const r = (await res.json()) as { ok: boolean; text?: string; error?: string }
    message = r.ok ? r.text ?? "" : `error: ${r.error}`
    render()
  }

  const boardsEl = h("div", { class: "boards", id: "boards" })
  const statusEl = h("div", { class: "status", id: "status" })
  const diagramEl = h("div", { class: "diagram", id: "diagram" })
  const logEl = h("pre", { class: "trace", id: "log" })
  const lossInput = h("input", { id: "loss", type: "number", min: 0, max: 0.9, step: 0.05, value: 0, style: "width:5em" }) as HTMLInputElement
  const delayInput = h("input", { id: "delay", type: "number", min: 0, max: 10000, step: 10, value: 0, style: "width:5em" }) as HTMLInputElement
  const srcSelect = h("select", { id: "drop-src" }) as HTMLSelectElement
  const dstSelect = h("select", { id: "drop-dst" }) as HTMLSelectElement
  const slowBox = h("input", { type: "checkbox", id: "slow", onchange: () => post({ action: "slow", on: slowBox.checked }) }) as HTMLInputElement
  const messageEl = h("span", { id: "message", class: "message" })

  replace(
    root,
    h("header", {}, h("h1", {}, "ElectLab"), h("span", { class: "mode", id: "mode" }, "live · virtual lab")),
    statusEl,
    h("p", { class: "hint" }, "Click a board's buttons to crash or recover it, or to power it off and on."),
    boardsEl,
    h(
      "section",
      { class: "controls" },
      h("label", { title: "probability that the hub loses one copy of a frame" }, "hub loss ", lossInput),
      h("label", {}, "delay ms ", delayInput),
      h("button", { id: "hub-apply", onclick: () => post({ action: "hub", loss: Number(lossInput.value), delayMs: Number(delayInput.value) }) }, "set hub"),
      h("span", { class: "or" }, "|"),
      "drop the next frame from ", srcSelect, " to ", dstSelect,
      h("button", { id: "drop", onclick: () => post({ action: "drop", src: Number(srcSelect.value), dst: Number(dstSelect.value) }) }, "arm"),
      h("span", { class: "or" }, "|"),
      h("label", { title: "reboots every board with its election timers ×10 (failure detector ×2) and holds each bus frame 150 ms" }, slowBox, " slow motion"),
      h("label", {}, h("input", { type: "checkbox", id: "heartbeats", onchange: (e: Event) => {
        showHeartbeats = (e.target as HTMLInputElement).checked
        render()
      } }), " heartbeats"),
      h("label", {}, "window ", h("select", { id: "window", onchange: (e: Event) => {
        windowMs = Number((e.target as HTMLSelectElement).value)
        render()
      } }, WINDOWS_MS.map((w) => h("option", { value: w, selected: w === windowMs }, `${w / 1000} s`)))),
      h("label", {}, h("input", { type: "checkbox", id: "pause", onchange: (e: Event) => {
        paused = (e.target as HTMLInputElement).checked
        render()
      } }), " freeze diagram"),
      h("button", { id: "export-scenario", onclick: () => hello && state &&
        download("live-run.txt", liveScenario(hello, state.actions, state.now)) }, "export scenario"),
      h("button", { id: "export-shiviz", onclick: () => download("live-run-shiviz.log", liveShiviz(frames, hello?.ids ?? [])) }, "export ShiViz log"),
      messageEl,
    ),
    diagramEl,
    logEl,
    h("textarea", { id: "export-text", hidden: true, readonly: true, rows: 8 }),
  )

  let frozenAt = 0
  const render = () => {
    if (!hello || !state) return
    messageEl.textContent = message
    const st = state
    const ids = [...hello.ids].sort((a, b) => b - a)
    for (const sel of [srcSelect, dstSelect])
      if (sel.options.length !== ids.length)
        replace(sel, ids.map((id, i) => h("option", { value: id, selected: sel === dstSelect ? i === 1 : i === 0 }, id)))
    slowBox.checked = st.slow
    if (document.activeElement !== lossInput) lossInput.value = String(st.hub.loss)
    if (document.activeElement !== delayInput) delayInput.value = String(st.hub.delayMs)
    slowBox.disabled = st.busy
    const last = st.failovers[st.failovers.length - 1]
    const d = [...delays].sort((a, b) => a - b)
    replace(
      statusEl,
      h("div", { class: "title" }, h("b", {}, hello.algorithm), ` · ${hello.ids.length} boards · frames over ${hello.transport === "mqtt" ? "MQTT" : "the Jacdac bus"}`,
        ` · timers: answer ${hello.timing.answerTimeout} ms, heartbeat ${hello.timing.heartbeatInterval} ms${st.slow ? ` (slow motion ×${hello.slowFactor})` : ""}`,
        ` · hub loss ${st.hub.loss}, delay ${st.hub.delayMs} ms`, st.busy ? " · boards rebooting…" : ""),
      h("div", { class: st.agreement.agreed ? "ok" : "bad" },
        st.agreement.agreed ? ["all live boards agree: coordinator ", h("b", { id: "coordinator" }, st.agreement.coordinator)] : "no agreement yet"),
      last ? h("div", { id: "last-failover" }, `last: ${last.trigger} → ${last.coordinatorAfter ?? "?"}` +
        (last.durationMs !== null ? ` in ${last.durationMs} ms, ${last.electionFrames} election frames` : "")) : null,
      st.dropNext ? h("div", { class: "bad" }, `armed: the next frame from ${st.dropNext.src} to ${st.dropNext.dst} will be dropped at the hub`) : null,
      d.length ? h("div", { class: "small", id: "tap-delay", "data-max": d[d.length - 1], "data-median": d[Math.floor(d.length / 2)] },
        `tap → page: median ${d[Math.floor(d.length / 2)]} ms, max ${d[d.length - 1]} ms over ${d.length} frames`) : null,
    )
    const byNode = new Map(st.boards.map((b) => [b.node, b]))
    replace(
      boardsEl,
      ids.map((id) => {
        const b = byNode.get(id)
        if (!b) return null
        const role = b.powered ? (b.booted ? b.role : "booting") : "off"
        return h("div", { class: `board role-${role}`, "data-node": id, "data-role": role, "data-coordinator": b.coordinator },
          h("div", { class: "led", "data-role": b.role, "data-powered": String(b.powered && b.booted) }),
          h("div", { class: "id" }, `board ${id}${hello!.hostNodes.includes(id) ? " (host)" : ""}`),
          h("div", { class: "role" }, role),
          h("div", { class: "small" }, b.powered && b.coordinator >= 0 ? `coord ${b.coordinator} · epoch ${b.epoch}` : "—"),
          h("div", { class: "small" }, `tx ${b.tx} · rx ${b.rx}`),
          h("div", { class: "buttons" },
            b.powered && b.booted
              ? h("button", { class: "crash", onclick: () => post({ action: b.role === "crashed" ? "recover" : "crash", node: id }) },
                  b.role === "crashed" ? "recover" : "crash")
              : null,
            h("button", { class: "power", onclick: () => post({ action: b.powered ? "kill" : "restart", node: id }) },
              b.powered ? "power off" : "power on")))
      }),
    )
    if (!paused) frozenAt = st.now
    replace(diagramEl, liveDiagram(ids, frames, st, showHeartbeats, windowMs, paused ? frozenAt : Math.max(st.now, frames.length ? frames[frames.length - 1].at : 0)))
    replace(logEl, st.log.map((l) => `${(l.at / 1000).toFixed(1).padStart(6)}s ${l.text}`).join("\n"))
    logEl.scrollTop = logEl.scrollHeight
    paintLeds()
  }

  let pending = false
  const soon = () => {
    if (pending) return
    pending = true
    requestAnimationFrame(() => {
      pending = false
      render()
    })
  }
  const events = new EventSource("/api/live")
  events.addEventListener("hello", (e) => {
    hello = JSON.parse((e as MessageEvent).data)
    soon()
  })
  events.addEventListener("state", (e) => {
    state = JSON.parse((e as MessageEvent).data)
    soon()
  })
  const onFrame = (f: TappedFrame) => {
    frames.push(f)
    if (frames.length > 5000) frames.splice(0, 1000)
  }
  events.addEventListener("frames", (e) => {
    frames.length = 0 // the whole list: at connection, and when the lab's clock origin moves
    for (const f of JSON.parse((e as MessageEvent).data) as TappedFrame[]) onFrame(f)
    soon()
  })
  events.addEventListener("frame", (e) => {
    const f = JSON.parse((e as MessageEvent).data) as TappedFrame
    delays.push(Date.now() - f.wall)
    if (delays.length > 500) delays.shift()
    onFrame(f)
    // keep the diagram's clock moving between state messages
    if (state && f.at > state.now) state.now = f.at
    soon()
  })
  setInterval(() => {
    if (state) state.now += 250
    soon()
  }, 250)
}

/** The last `windowMs` of frames: one lane per board, broadcasts fan out to every other lane. */
function liveDiagram(ids: number[], frames: TappedFrame[], st: LiveState, heartbeats: boolean, windowMs: number, now: number): SVGElement {
  const left = 70
  const width = 1100
  const lane = 36
  const height = ids.length * lane + 40
  const t0 = now - windowMs
  const x = (t: number) => left + ((t - t0) / windowMs) * (width - left - 20)
  const y = (id: number) => 24 + ids.indexOf(id) * lane
  const parts: SVGElement[] = []
  for (const f of st.failovers) {
    const end = f.startedAt + (f.durationMs ?? now - f.startedAt)
    if (end < t0) continue
    parts.push(s("rect", { x: x(Math.max(t0, f.startedAt)), y: 14, width: Math.max(2, x(end) - x(Math.max(t0, f.startedAt))), height: height - 40, class: "failover" }))
    parts.push(s("text", { x: Math.min(x(Math.max(t0, f.startedAt)) + 3, width - 260), y: height - 14, class: "failover-label" },
      `${f.trigger} → ${f.coordinatorAfter ?? "?"}: ${f.durationMs ?? "…"} ms, ${f.electionFrames} frames`))
  }
  for (const id of ids) {
    parts.push(s("text", { x: 8, y: y(id) + 4, class: "lane-label" }, `board ${id}`))
    parts.push(s("line", { x1: left, x2: width - 20, y1: y(id), y2: y(id), class: "lane" }))
  }
  let hidden = 0
  const delay = Math.max(st.hub.delayMs, 4)
  for (const f of frames) {
    if (f.at < t0 || f.at > now + 1000) continue
    if (f.kind === "HEARTBEAT" && !heartbeats) {
      hidden++
      continue
    }
    const targets = f.dst >= 0 ? [f.dst] : ids.filter((i) => i !== f.src)
    for (const dst of targets) {
      if (!ids.includes(dst) || !ids.includes(f.src)) continue
      // a few pixels of slant at least, so that an arrow shows its direction at any zoom
      parts.push(s("line", { x1: x(f.at), y1: y(f.src), x2: Math.max(x(f.at + delay), x(f.at) + 10), y2: y(dst), stroke: kindColor(f.kind),
        "stroke-width": f.kind === "HEARTBEAT" ? 1 : 2, class: `arrow kind-${f.kind}`, "marker-end": `url(#live-head-${f.kind})`, "data-kind": f.kind, "data-src": f.src, "data-dst": dst },
        s("title", {}, `${f.src} → ${f.dst < 0 ? "all" : f.dst} ${f.kind} epoch ${f.epoch} at ${(f.at / 1000).toFixed(3)} s`)))
    }
  }
  parts.push(s("text", { x: left, y: 12, class: "legend" },
    `last ${windowMs / 1000} s · ${hidden ? `${hidden} heartbeats folded · ` : ""}ELECTION, OK, COORDINATOR … coloured by kind`))
  const defs = s("defs", {}, Object.keys(KIND_COLORS).map((k) =>
    s("marker", { id: `live-head-${k}`, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" },
      s("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: kindColor(k) }))))
  return s("svg", { width, height, class: "tsd" }, defs, parts)
}

/** ShiViz log of the live frames: a send at the hub, a receipt at each destination. */
function liveShiviz(frames: TappedFrame[], ids: number[]): string {
  const events: LogEvent[] = []
  frames.forEach((f, i) => {
    events.push({ node: f.src, type: "send", message: i, text: `send ${f.kind} to ${f.dst < 0 ? "all" : f.dst} (epoch ${f.epoch}, ${f.at} ms)` })
    const targets = f.dst >= 0 ? [f.dst] : ids.filter((id) => id !== f.src)
    for (const dst of targets) events.push({ node: dst, type: "receive", message: i, text: `receive ${f.kind} from ${f.src}` })
  })
  return shivizLog(events)
}
