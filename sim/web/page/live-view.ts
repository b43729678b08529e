// The live view of the virtual lab: the boards with their LEDs, a time-space diagram fed by
// the tap at the bus hub (or the broker), failovers, and the clicks that act on the boards.

import { type LiveAction, type LogEvent, liveScenario, shivizLog } from "../export"
import type { Transition } from "../../lab/lab"
import type { TappedFrame } from "../tap"
import { type CausalStep, causalSteps, framesOfFailover } from "./causal"
import { download, h, replace, s } from "./dom"
import { isLarge, KIND_COLORS, kindColor, kindLegend, largeTypeToggle, paintLeds } from "./look"
import { pendingTimers } from "./timers"

interface Board {
  node: number
  powered: boolean
  booted: boolean
  role: string
  coordinator: number
  epoch: number
  tx: number
  rx: number
  /** The program's heap after the VM's last collection and its peak, bytes; null for a host node. */
  heapLive: number | null
  heapPeak: number | null
  /** A problem of its configuration the board reported (it takes no part), in its own words. */
  problem: string | null
}

/** "heap 21.4 KB · peak 30.1 KB" */
function heapText(b: Board): string {
  return `heap ${((b.heapLive ?? 0) / 1024).toFixed(1)} KB · peak ${((b.heapPeak ?? 0) / 1024).toFixed(1)} KB`
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
  /** The failover opened in the zoomed diagram (by its start), and how many failovers there were then. */
  let zoom: { startedAt: number; count: number } | null = null
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
  const legendEl = h("div", { id: "legend" })
  // the heading and its button are kept across redraws, so that a click between two of them lands
  const zoomTitle = h("span", {})
  const zoomClose = h("button", { id: "zoom-close", onclick: () => {
    zoom = null
    render()
  } }, "✕ close")
  const zoomBody = h("div", {})
  const zoomEl = h("section", { class: "zoom", id: "zoom", hidden: true }, h("div", { class: "zoom-head" }, zoomTitle, zoomClose), zoomBody)
  const openZoom = (f: Failover) => {
    zoom = { startedAt: f.startedAt, count: state?.failovers.length ?? 0 }
    render()
    zoomEl.scrollIntoView({ block: "nearest" })
  }
  const logEl = h("pre", { class: "trace", id: "log" })
  const lossInput = h("input", { id: "loss", type: "number", min: 0, max: 0.9, step: 0.05, value: 0, style: "width:5em" }) as HTMLInputElement
  const delayInput = h("input", { id: "delay", type: "number", min: 0, max: 10000, step: 10, value: 0, style: "width:5em" }) as HTMLInputElement
  const srcSelect = h("select", { id: "drop-src" }) as HTMLSelectElement
  const dstSelect = h("select", { id: "drop-dst" }) as HTMLSelectElement
  const slowBox = h("input", { type: "checkbox", id: "slow", onchange: () => post({ action: "slow", on: slowBox.checked }) }) as HTMLInputElement
  const messageEl = h("span", { id: "message", class: "message" })

  replace(
    root,
    h("header", {}, h("h1", {}, "ElectLab"), h("span", { class: "mode", id: "mode" }, "live · virtual lab"), largeTypeToggle(() => render())),
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
    legendEl,
    diagramEl,
    zoomEl,
    logEl,
    h("textarea", { id: "export-text", hidden: true, readonly: true, rows: 8 }),
  )

  /**
   * One element per board, updated in place: a click pressed before a redraw and released
   * after it still lands on its button, which reads the board's state when clicked.
   */
  const boardViews = new Map<number, { root: HTMLElement; body: HTMLElement; crash: HTMLElement; power: HTMLElement }>()
  const boardNow = (id: number) => state?.boards.find((b) => b.node === id)
  const boardView = (id: number) => {
    let view = boardViews.get(id)
    if (view) return view
    const body = h("div", {})
    const crash = h("button", { class: "crash", onclick: () => {
      const b = boardNow(id)
      if (b) void post({ action: b.role === "crashed" ? "recover" : "crash", node: id })
    } })
    const power = h("button", { class: "power", onclick: () => {
      const b = boardNow(id)
      if (b) void post({ action: b.powered ? "kill" : "restart", node: id })
    } })
    view = { root: h("div", { class: "board", "data-node": id }, body, h("div", { class: "buttons" }, crash, power)), body, crash, power }
    boardViews.set(id, view)
    return view
  }
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
    const timerNow = paused ? frozenAt : st.now
    const timerBars = (b: Board, role: string) => {
      const timers = pendingTimers({ node: b.node, role, coordinator: b.coordinator }, frames, hello!.timing, hello!.algorithm, st.hub.delayMs)
      return h("div", { class: "timers" }, timers.map((t) => {
        const total = t.deadline - t.startedAt
        const left = Math.max(0, Math.min(total, t.deadline - timerNow))
        return h("div", { class: "timer", "data-timer": t.name, "data-left": Math.round(left), title: `${t.name}: ${Math.round(left)} of ${total} ms left · ${t.how}` },
          h("span", { class: "timer-name" }, t.name),
          h("span", { class: "timer-track" }, h("span", { class: `timer-bar timer-${t.name === "watch" ? "watch" : "election"}`, style: `width:${total > 0 ? (100 * left) / total : 0}%` })),
          h("span", { class: "timer-left" }, `${(left / 1000).toFixed(1)} s`))
      }))
    }
    for (const id of ids) {
      const b = byNode.get(id)
      const view = boardView(id)
      if (!b) {
        view.root.hidden = true
        continue
      }
      const role = b.powered ? (b.booted ? b.role : "booting") : "off"
      view.root.hidden = false
      view.root.className = `board role-${role}`
      view.root.dataset.role = role
      view.root.dataset.coordinator = String(b.coordinator)
      replace(view.body,
        h("div", { class: "led", "data-role": b.role, "data-powered": String(b.powered && b.booted) }),
        h("div", { class: "id" }, `board ${id}${hello!.hostNodes.includes(id) ? " (host)" : ""}`),
        h("div", { class: "role" }, role),
        h("div", { class: "small" }, b.powered && b.coordinator >= 0 ? `coord ${b.coordinator} · epoch ${b.epoch}` : "—"),
        h("div", { class: "small" }, `tx ${b.tx} · rx ${b.rx}`),
        b.heapPeak === null ? null : h("div", { class: "small heap" }, heapText(b)),
        b.problem ? h("div", { class: "small problem" }, b.problem) : null,
        timerBars(b, role))
      view.crash.hidden = !(b.powered && b.booted)
      view.crash.textContent = b.role === "crashed" ? "recover" : "crash"
      view.power.textContent = b.powered ? "power off" : "power on"
    }
    if (boardsEl.childElementCount !== ids.length || ids.some((id, i) => boardsEl.children[i] !== boardViews.get(id)!.root))
      boardsEl.replaceChildren(...ids.map((id) => boardViews.get(id)!.root))
    if (!paused) frozenAt = st.now
    replace(diagramEl, liveDiagram(ids, frames, st, showHeartbeats, windowMs, paused ? frozenAt : Math.max(st.now, frames.length ? frames[frames.length - 1].at : 0), openZoom))
    replace(legendEl, kindLegend(frames.filter((f) => showHeartbeats || f.kind !== "HEARTBEAT").map((f) => f.kind), "live-legend"))
    // a new failover closes the one opened before it
    if (zoom && st.failovers.length > zoom.count) zoom = null
    const opened = zoom && st.failovers.find((f) => f.startedAt === zoom!.startedAt)
    zoomEl.hidden = !opened
    if (opened) {
      const end = opened.durationMs === null ? st.now : opened.startedAt + opened.durationMs
      const shown = framesOfFailover(frames, opened.startedAt, end)
      const steps = causalSteps(shown, { hubDelayMs: st.hub.delayMs })
      replace(zoomTitle,
        h("b", {}, `${opened.trigger} → ${opened.coordinatorAfter ?? "?"}`),
        ` · ${opened.durationMs === null ? "still electing" : `${opened.durationMs} ms`} · ${steps.length} steps, ${shown.length} frames, in causal order`)
      replace(zoomBody,
        h("p", { class: "hint" }, "One column per send, in the order the hub saw them: an answer is always to the right of what it answers; " +
          "copies a board sent at once (a multicast) share a column. Under each column: when the hub saw it, after the trigger."),
        kindLegend(steps.map((x) => x.kind), "zoom-legend"),
        h("div", { class: "diagram" }, zoomDiagram(ids, steps, opened.startedAt, zoomEl.clientWidth - 24)))
    }
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
function liveDiagram(ids: number[], frames: TappedFrame[], st: LiveState, heartbeats: boolean, windowMs: number, now: number,
  open: (f: Failover) => void): SVGElement {
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
    const title = s("title", {}, "click: this election step by step")
    // at least 12 px wide, so that a short election is still easy to click
    const w = Math.max(12, x(end) - x(Math.max(t0, f.startedAt)))
    parts.push(s("rect", { x: x(Math.max(t0, f.startedAt)), y: 14, width: w, height: height - 40, class: "failover",
      "data-started": f.startedAt, onpointerdown: () => open(f) }, title))
    parts.push(s("text", { x: Math.min(x(Math.max(t0, f.startedAt)) + 3, width - 330), y: height - 14, class: "failover-label", onpointerdown: () => open(f) },
      `${f.trigger} → ${f.coordinatorAfter ?? "?"}: ${f.durationMs ?? "…"} ms, ${f.electionFrames} frames · click to zoom`, title.cloneNode(true)))
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
    `last ${windowMs / 1000} s · ${hidden ? `${hidden} heartbeats folded · ` : ""}a yellow band is a failover: click it to see its election step by step`))
  const defs = s("defs", {}, Object.keys(KIND_COLORS).map((k) =>
    s("marker", { id: `live-head-${k}`, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" },
      s("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: kindColor(k) }))))
  return s("svg", { width, height, viewBox: `0 0 ${width} ${height}`, class: "tsd live-tsd" }, defs, parts)
}

/** One election by causal order: a column per send, each arrow labelled with its kind. */
function zoomDiagram(ids: number[], steps: CausalStep[], startedAt: number, room: number): SVGElement {
  const large = isLarge()
  const lane = large ? 58 : 44
  const left = large ? 100 : 70
  // columns as wide as the room allows, between a label's width and a little more; beyond, it scrolls
  const col = Math.max(large ? 84 : 62, Math.min(large ? 132 : 96, Math.floor((room - left - 20) / (steps.length + 1))))
  const top = large ? 34 : 26
  const width = left + (steps.length + 1) * col + 20
  const height = top + (ids.length - 1) * lane + (large ? 48 : 36)
  const x = (i: number) => left + i * col + col / 2
  const y = (id: number) => top + ids.indexOf(id) * lane
  const parts: SVGElement[] = []
  for (const id of ids) {
    parts.push(s("text", { x: 8, y: y(id) + 4, class: "lane-label" }, `board ${id}`))
    parts.push(s("line", { x1: left, x2: width - 20, y1: y(id), y2: y(id), class: "lane" }))
  }
  const labels: SVGElement[] = []
  for (const st of steps) {
    if (!ids.includes(st.src)) continue
    const x1 = x(st.step)
    parts.push(s("text", { x: x1, y: top - (large ? 16 : 12), class: "tick zstep", "text-anchor": "middle" }, st.step + 1))
    parts.push(s("text", { x: x1, y: height - 6, class: "tick", "text-anchor": "middle" }, `+${Math.round(st.at - startedAt)} ms`))
    parts.push(s("circle", { cx: x1, cy: y(st.src), r: 3.5, fill: kindColor(st.kind) }))
    const targets = st.dsts[0] === -1 ? ids.filter((i) => i !== st.src) : st.dsts.filter((d) => ids.includes(d))
    for (const dst of targets) {
      const y1 = y(st.src)
      const y2 = y(dst)
      const title = `step ${st.step + 1} (Lamport clock ${st.lamport}): ${st.src} → ${st.dsts[0] === -1 ? "all" : dst} ${st.kind} epoch ${st.epoch}, seen at +${Math.round(st.at - startedAt)} ms`
      parts.push(s("line", { x1, y1, x2: x1 + col, y2, stroke: kindColor(st.kind), "stroke-width": 2, class: `zarrow kind-${st.kind}`,
        "marker-end": `url(#live-head-${st.kind})`, "data-kind": st.kind, "data-src": st.src, "data-dst": dst, "data-step": st.step, "data-lamport": st.lamport },
        s("title", {}, title)))
      // the label sits on the arrow's middle, a third of the way in so that fans do not overlap
      labels.push(s("text", { x: x1 + col * 0.45, y: y1 + (y2 - y1) * 0.45 + 4, class: "zlabel", "text-anchor": "middle", fill: kindColor(st.kind),
        "data-kind": st.kind, "data-src": st.src, "data-dst": dst, "data-step": st.step }, st.kind, s("title", {}, title)))
    }
  }
  const defs = s("defs", {}, Object.keys(KIND_COLORS).map((k) =>
    s("marker", { id: `live-head-${k}`, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" },
      s("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: kindColor(k) }))))
  return s("svg", { width, height, class: "tsd zoom-tsd" }, defs, parts, labels)
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
