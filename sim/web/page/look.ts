// How the page draws roles (the boards' own LED scheme) and message kinds.

import { Role } from "../../../src/core/contract"
import { LED_SLOT_MS, ledLook } from "../../../src/firmware/led-scheme"
import { h } from "./dom"
import { KIND_COLORS, kindColor } from "./kinds"

export { KIND_COLORS, kindColor }

const ROLE_BY_NAME: Record<string, Role> = {
  follower: Role.Follower,
  coordinator: Role.Coordinator,
  electing: Role.Electing,
  crashed: Role.Crashed,
  misconfigured: Role.Misconfigured,
}

/** A row of swatches naming each kind's colour, in the frame codec's order. */
export function kindLegend(kinds: Iterable<string>, id?: string): HTMLElement {
  const present = new Set(kinds)
  const order = [...Object.keys(KIND_COLORS).filter((k) => present.has(k)), ...[...present].filter((k) => !(k in KIND_COLORS))]
  return h("div", { class: "kind-legend", id },
    order.map((k) => h("span", { class: "kind", "data-kind": k }, h("span", { class: "swatch", style: `background:${kindColor(k)}` }), k)))
}

/** Large type for a projector: `?large=1` in the address, or the toggle (which keeps the address in step). */
export function largeTypeToggle(onChange: () => void): HTMLElement {
  const params = new URLSearchParams(location.search)
  const on = params.get("large") === "1"
  document.body.classList.toggle("large", on)
  const box = h("input", { type: "checkbox", id: "large", checked: on, onchange: () => {
    const large = (box as HTMLInputElement).checked
    document.body.classList.toggle("large", large)
    const p = new URLSearchParams(location.search)
    if (large) p.set("large", "1")
    else p.delete("large")
    const q = p.toString()
    history.replaceState(null, "", q ? `?${q}` : location.pathname)
    onChange()
  } })
  return h("label", { class: "large-toggle", title: "bigger letters and diagrams, for a projector" }, box, " large type")
}

/** The diagrams' letter size: larger with large type. */
export function isLarge(): boolean {
  return document.body.classList.contains("large")
}

function hex(color: number): string {
  return "#" + color.toString(16).padStart(6, "0")
}

/** The LED's colour at this moment, as the board shows it (null: dark). */
export function ledColor(role: string, powered: boolean, nowMs: number): string | null {
  if (!powered) return null
  const r = ROLE_BY_NAME[role]
  if (r === undefined) return null
  const look = ledLook(r)
  const slot = Math.floor(nowMs / LED_SLOT_MS) % 8
  return look.pattern.charAt(slot) === "1" ? hex(look.color) : null
}

/** The role's steady colour (lanes of the diagram). */
export function roleColor(role: string): string {
  const r = ROLE_BY_NAME[role]
  return r === undefined ? "#ced4da" : hex(ledLook(r).color)
}

const steady = () => new URLSearchParams(location.search).get("led") === "on"

/**
 * Colours every `.led` element from its data-role/data-powered for the current slot. With
 * `?led=on` in the address every LED shows slot 0, where every pattern is lit (screenshots).
 * Views call it after each redraw, so that a new LED never shows dark until the next slot.
 */
export function paintLeds() {
  const now = steady() ? 0 : Date.now()
  for (const el of Array.from(document.querySelectorAll<HTMLElement>(".led"))) {
    const c = ledColor(el.dataset.role ?? "", el.dataset.powered !== "false", now)
    el.style.background = c ?? "#212529"
    el.style.boxShadow = c ? `0 0 10px ${c}` : "none"
  }
}

export function startBlinking() {
  paintLeds()
  setInterval(paintLeds, LED_SLOT_MS)
}
