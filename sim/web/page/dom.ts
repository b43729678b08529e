// A few lines of DOM and SVG building instead of a framework: the page is two panels and a
// diagram, redrawn whole on each change (cheap at this size).

type Attrs = Record<string, string | number | boolean | ((e: Event) => void) | undefined>
type Child = Node | string | number | null | undefined | false | Child[]

const SVG_NS = "http://www.w3.org/2000/svg"

function build(el: Element, attrs: Attrs, children: Child[]): Element {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue
    if (typeof v === "function") el.addEventListener(k.replace(/^on/, ""), v)
    else if (k === "value" && "value" in el) (el as HTMLInputElement).value = String(v)
    else if (k === "checked" && "checked" in el) (el as HTMLInputElement).checked = !!v
    else el.setAttribute(k, v === true ? "" : String(v))
  }
  const add = (c: Child) => {
    if (c === null || c === undefined || c === false) return
    if (Array.isArray(c)) c.forEach(add)
    else el.append(typeof c === "object" ? c : String(c))
  }
  children.forEach(add)
  return el
}

export function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  return build(document.createElement(tag), attrs, children) as HTMLElement
}

export function s(tag: string, attrs: Attrs = {}, ...children: Child[]): SVGElement {
  return build(document.createElementNS(SVG_NS, tag), attrs, children) as SVGElement
}

export function replace(target: Element, ...children: Child[]) {
  target.replaceChildren()
  build(target, {}, children)
}

/** Offers `text` as a file download and shows it in the page's export box. */
export function download(name: string, text: string) {
  const box = document.getElementById("export-text") as HTMLTextAreaElement | null
  if (box) {
    box.value = text
    box.dataset.name = name
    box.hidden = false
  }
  const a = h("a", { href: URL.createObjectURL(new Blob([text], { type: "text/plain" })), download: name })
  document.body.append(a)
  a.click()
  a.remove()
}
