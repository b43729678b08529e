// Stand-ins for node:fs and node:path in the browser bundle: the scenario parser and the
// topology reader look files up in the set the server sent (golden scenarios, edge lists).
function files() {
  return globalThis.ELECTLAB_FILES || {}
}
export function existsSync(path) {
  return Object.prototype.hasOwnProperty.call(files(), path)
}
export function readFileSync(path) {
  if (existsSync(path)) return files()[path]
  throw new Error(`ENOENT: no such file in the page: '${path}'`)
}
export function isAbsolute(path) {
  return path.startsWith("/")
}
export function dirname(path) {
  const i = path.lastIndexOf("/")
  return i < 0 ? "." : path.slice(0, i)
}
export function join(...parts) {
  const out = []
  for (const part of parts.join("/").split("/")) {
    if (part === "" || part === ".") continue
    if (part === ".." && out.length && out[out.length - 1] !== "..") out.pop()
    else out.push(part)
  }
  return out.join("/")
}
