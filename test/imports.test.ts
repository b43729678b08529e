// How the code's files and folders depend on each other (docs/architecture.md): no import
// cycle (type-only imports included), src/ never reaches into sim/ or test/, src/core/
// imports nothing but itself, sim/config/ nothing else of sim/. Read from the import statements as TypeScript parses them,
// relative specifiers resolved to files.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"
import ts from "typescript"
import { describe, expect, test } from "vitest"

const root = join(import.meta.dirname, "..")

interface Import {
  /** As written: "./frame", "node:fs". */
  specifier: string
  /** The file it names, relative to the repository; null for a package or a missing file. */
  file: string | null
  /** `import type`, `export type`, `import("./x").T`: erased, so no load order. */
  typeOnly: boolean
}

/** The .ts files under `dir` (relative to the repository), without installed packages. */
function walk(dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === ".devicescript") continue
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) out.push(...walk(path))
    else if (entry.name.endsWith(".ts")) out.push(path)
  }
  return out
}

const isFile = (path: string) => existsSync(join(root, path)) && statSync(join(root, path)).isFile()

/** The file a relative specifier names, as the bundler resolution finds it; null if none. */
function resolveSpecifier(from: string, specifier: string, exists: (path: string) => boolean): string | null {
  const base = relative(root, resolve(root, dirname(from), specifier)).split(sep).join("/")
  return [base, `${base}.ts`, `${base}.d.ts`, `${base}/index.ts`].find(exists) ?? null
}

/** Every module specifier of `text`: static and type imports, re-exports, import(). */
function importsOf(file: string, text: string, exists: (path: string) => boolean = isFile): Import[] {
  const found: Import[] = []
  const add = (specifier: string, typeOnly: boolean) =>
    found.push({ specifier, typeOnly, file: specifier.startsWith(".") ? resolveSpecifier(file, specifier, exists) : null })
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause
      const bindings = clause?.namedBindings
      const onlyTypes =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name && !!bindings && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly)))
      add(node.moduleSpecifier.text, onlyTypes)
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments
      if (arg && ts.isStringLiteralLike(arg)) add(arg.text, false)
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text, true)
    }
    ts.forEachChild(node, visit)
  }
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS))
  return found
}

/** One cycle per strongly connected part of `graph`, each as a path [a, b, ..., a]. */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const parts: string[][] = []
  const connect = (v: string) => {
    index.set(v, index.size)
    low.set(v, index.get(v)!)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const part: string[] = []
    let w: string
    do {
      w = stack.pop()!
      onStack.delete(w)
      part.push(w)
    } while (w !== v)
    if (part.length > 1 || (graph.get(v) ?? []).includes(v)) parts.push(part)
  }
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) connect(v)
  return parts.map((part) => shortestCycle([...part].sort()[0], graph, new Set(part))).sort()
}

/** The shortest way from `start` back to itself inside `part` (breadth first). */
function shortestCycle(start: string, graph: Map<string, string[]>, part: Set<string>): string[] {
  const previous = new Map<string, string>()
  const queue = [start]
  for (let i = 0; i < queue.length; i++) {
    for (const w of graph.get(queue[i]) ?? []) {
      if (w === start) {
        const back = [queue[i]]
        while (back.at(-1) !== start) back.push(previous.get(back.at(-1)!)!)
        return [...back.reverse(), start]
      }
      if (part.has(w) && !previous.has(w)) {
        previous.set(w, queue[i])
        queue.push(w)
      }
    }
  }
  return [start]
}

/** `from` → the files it imports, type-only imports included. */
function graphOf(imports: Map<string, Import[]>): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const [from, list] of imports) graph.set(from, [...new Set(list.filter((i) => i.file).map((i) => i.file!))])
  return graph
}

/** Every file `start` loads, itself included, following the import graph. */
function reachedFrom(graph: Map<string, string[]>, start: string): Set<string> {
  const seen = new Set([start])
  const queue = [start]
  for (let i = 0; i < queue.length; i++)
    for (const w of graph.get(queue[i]) ?? [])
      if (!seen.has(w)) {
        seen.add(w)
        queue.push(w)
      }
  return seen
}

const show = (cycles: string[][]) => cycles.map((c) => c.join(" -> "))

/** The names `file` imports from `specifier`, as written ("*" for a namespace, "default"). */
function namesImported(file: string, specifier: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), "utf8"), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS)
  const names: string[] = []
  for (const node of source.statements) {
    if (!ts.isImportDeclaration(node) || !ts.isStringLiteral(node.moduleSpecifier) || node.moduleSpecifier.text !== specifier) continue
    const clause = node.importClause
    if (clause?.name) names.push("default")
    const bindings = clause?.namedBindings
    if (bindings && ts.isNamespaceImport(bindings)) names.push("*")
    else if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) names.push((e.propertyName ?? e.name).text)
  }
  return names
}

const files = [...walk("src"), ...walk("sim"), ...walk("examples")]
const imports = new Map(files.map((f) => [f, importsOf(f, readFileSync(join(root, f), "utf8"))]))
const inSim = (f: string) => f.startsWith("sim/")

describe("imports", () => {
  test("every .ts file of src/ and sim/ is read, and every relative import names a file", () => {
    expect(files).toEqual(expect.arrayContaining(["src/core/node.ts", "src/firmware/driver.ts", "sim/cli.ts", "sim/config/input.ts", "sim/web/page/main.ts"]))
    expect(files.filter((f) => f.includes("node_modules") || f.includes(".devicescript"))).toEqual([])
    const missing = [...imports].flatMap(([from, list]) => list.filter((i) => i.specifier.startsWith(".") && !i.file).map((i) => `${from}: ${i.specifier}`))
    expect(missing).toEqual([])
  })

  test("no import cycle in src/ or sim/, type-only imports included", () => {
    expect(show(cyclesOf(graphOf(imports)))).toEqual([])
  })

  test("sim/'s folders import each other one way only (its top-level files aside: cli.ts registers them all)", () => {
    const folders = new Map<string, string[]>()
    for (const [from, list] of imports)
      for (const i of list) {
        const [a, b] = [dirname(from), i.file ? dirname(i.file) : ""]
        if (a === b || a === "sim" || b === "sim" || !inSim(a) || !inSim(b)) continue
        folders.set(a, [...(folders.get(a) ?? []), b])
      }
    expect(show(cyclesOf(folders))).toEqual([])
  })

  test("sim/config/ imports nothing else of sim/: every command's input sits below the rest", () => {
    const found = [...imports]
      .filter(([from]) => from.startsWith("sim/config/"))
      .flatMap(([from, list]) => list.filter((i) => i.file && inSim(i.file) && !i.file.startsWith("sim/config/")).map((i) => `${from} -> ${i.file}`))
    expect(found).toEqual([])
  })

  test("nothing imports the lab's rogue board (src/attacks/): only the attacker image's generated entry names it", () => {
    expect(files).toContain("src/attacks/rogue.ts")
    const found = [...imports].flatMap(([from, list]) => list.filter((i) => i.file?.startsWith("src/attacks/") && !from.startsWith("src/attacks/")).map((i) => `${from} -> ${i.file}`))
    expect(found).toEqual([])
  })

  test("src/ imports nothing from sim/ or test/", () => {
    const found = [...imports]
      .filter(([from]) => from.startsWith("src/"))
      .flatMap(([from, list]) => list.filter((i) => /^(?:sim|test)\//.test(i.file ?? "")).map((i) => `${from} -> ${i.file}`))
    expect(found).toEqual([])
  })

  test("src/core/ imports nothing but src/core/: no other folder, no package, no platform", () => {
    const found = [...imports]
      .filter(([from]) => from.startsWith("src/core/"))
      .flatMap(([from, list]) => list.filter((i) => !i.file?.startsWith("src/core/")).map((i) => `${from} -> ${i.file ?? i.specifier}`))
    expect(found).toEqual([])
  })

  test("the engine, the node's classes and its parts reach no algorithm: they are given their nodes (createCluster)", () => {
    const reached = (start: string) => reachedFrom(graphOf(imports), start)
    const algorithmFiles = ["src/core/algorithms.ts", "src/core/bully.ts", "src/core/improved-bully.ts", "src/core/ring.ts", "src/core/active-list-ring.ts", "src/core/bid-ring.ts", "src/core/echo.ts"]
    for (const file of algorithmFiles) expect(files).toContain(file)
    const nodeParts = ["src/core/node.ts", "src/core/node-state.ts", "src/core/frame-filter.ts", "src/core/liveness.ts", "src/core/deadline.ts", "src/core/handover.ts"]
    for (const file of nodeParts) expect(files).toContain(file)
    for (const start of ["src/core/engine.ts", ...nodeParts]) expect([...reached(start)].filter((f) => algorithmFiles.includes(f)), start).toEqual([])
  })

  test("a board image reaches one algorithm: each entry of src/images/ its own, the programs none, and never the registry", () => {
    const reached = (start: string) => reachedFrom(graphOf(imports), start)
    const algorithms = ["bully", "improved-bully", "ring", "active-list-ring", "bid-ring", "echo"]
    const images = files.filter((f) => f.startsWith("src/images/"))
    expect(images.sort()).toEqual(algorithms.map((a) => `src/images/${a}.ts`).sort())
    const algorithmsReached = (start: string) =>
      [...reached(start)].filter((f) => f === "src/core/algorithms.ts" || algorithms.some((a) => f === `src/core/${a}.ts`))
    for (const a of algorithms) expect(algorithmsReached(`src/images/${a}.ts`), a).toEqual([`src/core/${a}.ts`])
    for (const program of ["src/main.ts", "src/election.ts", "src/demo.ts", "examples/sensor-summary/src/main.ts"]) expect(algorithmsReached(program), program).toEqual([])
  })

  test("the exhaustive check names no algorithm: an algorithm's own fields come from its module's hints, through the registry", () => {
    const algorithmModules = ["bully", "improved-bully", "ring", "active-list-ring", "bid-ring", "echo", "ring-base"].map((m) => `src/core/${m}.ts`)
    for (const file of algorithmModules) expect(files).toContain(file)
    const checkFiles = files.filter((f) => f.startsWith("sim/check/"))
    expect(checkFiles).toEqual(expect.arrayContaining(["sim/check/model.ts", "sim/check/abstraction.ts", "sim/check/hints.ts"]))
    const found = checkFiles.flatMap((from) =>
      imports
        .get(from)!
        .filter((i) => algorithmModules.includes(i.file ?? ""))
        .map((i) => `${from} -> ${i.file} ${namesImported(from, i.specifier).join(",")}`),
    )
    // the ring abstraction reads the ring's tag layout and buffer size, not its class
    expect(found).toEqual(["sim/check/abstraction.ts -> src/core/ring-base.ts SEEN_MESSAGES,seqOfAckTag"])
  })

  test("the checks catch what they are for", () => {
    const have = new Set(["sim/a.ts", "sim/b.ts", "sim/x/index.ts", "src/core/frame.ts"])
    const text = [
      `// import { no } from "./commented"`,
      `import { a } from "./a"`,
      `import type { B } from "./b"`,
      `import { type C, type D } from "./b"`,
      `export { x } from "./x"`,
      `export type { Y } from "./a"`,
      `const later = await import("./a")`,
      `let t: import("./b").T`,
      `const s = 'import { z } from "./z"'`,
      `import { readFileSync } from "node:fs"`,
      `import "../src/core/frame"`,
    ].join("\n")
    expect(importsOf("sim/c.ts", text, (p) => have.has(p))).toEqual([
      { specifier: "./a", file: "sim/a.ts", typeOnly: false },
      { specifier: "./b", file: "sim/b.ts", typeOnly: true },
      { specifier: "./b", file: "sim/b.ts", typeOnly: true },
      { specifier: "./x", file: "sim/x/index.ts", typeOnly: false },
      { specifier: "./a", file: "sim/a.ts", typeOnly: true },
      { specifier: "./a", file: "sim/a.ts", typeOnly: false },
      { specifier: "./b", file: "sim/b.ts", typeOnly: true },
      { specifier: "node:fs", file: null, typeOnly: false },
      { specifier: "../src/core/frame", file: "src/core/frame.ts", typeOnly: false },
    ])
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c", "d"]],
      ["c", ["a"]],
      ["d", []],
      ["e", ["e"]],
    ])
    expect(cyclesOf(graph)).toEqual([["a", "b", "c", "a"], ["e", "e"]])
    expect(cyclesOf(new Map([["a", ["b"]], ["b", []]]))).toEqual([])
  })
})
