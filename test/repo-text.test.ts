// What users read speaks to them only: no issue numbers, no words about how the project is
// developed, and every file it names is in the repository. Covers README.md, docs/, sim/,
// src/ and the CLI's help (`electlab --help` and every command's).
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { describe, expect, test } from "vitest"
import type { Command } from "commander"
import { buildProgram } from "../sim/cli"

const root = join(import.meta.dirname, "..")
const bin = join(root, "bin", "electlab.js")

/** Issue references, anywhere: "issue 11", "issues 9, 12", "Issue #8". */
const ISSUE = /\bissues?\s+#?\d+/i
/** "#20" standing alone in prose (not a heading anchor such as lab-guide.md#8-bus-traffic). */
const HASH_NUMBER = /(?:^|[\s([,;])#\d+\b(?![-\w])/

/** Words about how the project is developed, not about what it does. */
const PROCESS_WORDS: RegExp[] = [
  /\bthe lead\b/i,
  /\bother agents?\b/i,
  /\bagents'/i,
  /\b(?:helper|this|each|previous|earlier|next) sessions?\b/i,
  /\bunder the (?:heavy |shared )?lock\b/i,
  /\bshared machine\b/i,
  /\bmachine (?:was )?shared\b/i,
  /\bthis stop\b/i,
  /\bstop \d+\b/i,
  /\bworktree\b/i,
  /\bDESIGN\.md\b/,
  /\.\.\/shared\b/,
  /\bshared\/(?:seeds|notes)\b/,
]

/** A repository path named in text: a top-level folder, then a file with an extension. */
const REPO_PATH = /(?<![\w./-])(?:docs|sim|src|test|scripts|services|boards|bin)\/[\w./-]*\w\.(?:md|ts|js|json|txt|png|svg|sh|css|edges)\b/g
/** A whole backticked span that is a path (a file or a folder). */
const BACKTICK_PATH = /^(?:docs|sim|src|test|scripts|services|boards|bin)\/[\w./-]*$/

function walk(dir: string, keep: (file: string) => boolean): string[] {
  const out: string[] = []
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...walk(path, keep))
    else if (keep(path)) out.push(path)
  }
  return out
}

const markdown = ["README.md", ...walk("docs", (f) => f.endsWith(".md"))]
const code = [...walk("sim", (f) => /\.(?:ts|js|css|json|txt|html)$/.test(f)), ...walk("src", (f) => /\.(?:ts|js|json)$/.test(f))]

/** Each line of `text` that matches one of `patterns`, as "file:line: text". */
function offending(file: string, text: string, patterns: RegExp[]): string[] {
  const found: string[] = []
  text.split("\n").forEach((line, i) => {
    for (const p of patterns) if (p.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`)
  })
  return found
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-")
}

const anchorCache = new Map<string, Set<string>>()

function anchorsOf(file: string): Set<string> {
  const cached = anchorCache.get(file)
  if (cached) return cached
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  let fenced = false
  for (const line of readFileSync(join(root, file), "utf8").split("\n")) {
    if (line.startsWith("```")) fenced = !fenced
    const m = !fenced && /^#{1,6}\s+(.*)$/.exec(line)
    if (!m) continue
    const base = slug(m[1])
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    anchors.add(n ? `${base}-${n}` : base)
  }
  anchorCache.set(file, anchors)
  return anchors
}

/** Broken relative links, anchors and backticked paths of one markdown file. */
function brokenReferences(file: string, text: string): string[] {
  const broken: string[] = []
  const here = dirname(join(root, file))
  for (const m of text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)) {
    const target = m[1]
    if (/^[a-z]+:/i.test(target)) continue
    const [path, anchor] = target.split("#")
    const abs = path ? resolve(here, path) : join(root, file)
    if (!existsSync(abs)) broken.push(`${file}: link to missing ${target}`)
    else if (anchor && abs.endsWith(".md") && !anchorsOf(relative(root, abs)).has(anchor))
      broken.push(`${file}: link to missing heading ${target}`)
  }
  for (const m of text.matchAll(/`([^`\n]+)`/g)) {
    const span = m[1]
    if (BACKTICK_PATH.test(span) && !existsSync(join(root, span))) broken.push(`${file}: names missing \`${span}\``)
  }
  return broken
}

/** Paths like docs/x.md or sim/lab/lab.ts in any text, relative to the repository. */
/** Paths in a user's project that the code writes (not this repository's files). */
const USER_PROJECT_PATHS = ["src/electlab-main.ts"]

function missingPaths(file: string, text: string): string[] {
  return [...text.matchAll(REPO_PATH)]
    .map((m) => m[0])
    .filter((p) => !existsSync(join(root, p)) && !USER_PROJECT_PATHS.includes(p))
    .map((p) => `${file}: names missing ${p}`)
}

/** What `electlab [command] --help` prints, from the CLI's own program, in this process. */
function helpOf(command: Command): string {
  let text = ""
  command.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) })
  command.outputHelp()
  return text
}

/** The same through bin/electlab.js, as a user runs it. */
function spawnedHelp(args: string[]): string {
  const r = spawnSync(process.execPath, [bin, ...args, "--help"], { encoding: "utf8" })
  expect(r.status).toBe(0)
  return r.stdout
}

describe("text users read", () => {
  test("the files scanned are there", () => {
    expect(markdown).toEqual(expect.arrayContaining(["README.md", "docs/lab.md", "docs/architecture.md", "docs/benchmarks.md"]))
    expect(code).toEqual(expect.arrayContaining(["sim/cli.ts", "src/core/node.ts", "sim/web/page/replay-view.ts"]))
  })

  test("README.md and docs/: no issue numbers, no development-process words", () => {
    const found = markdown.flatMap((f) => offending(f, readFileSync(join(root, f), "utf8"), [ISSUE, HASH_NUMBER, ...PROCESS_WORDS]))
    expect(found).toEqual([])
  })

  test("sim/ and src/: no issue numbers, no development-process words", () => {
    const found = code.flatMap((f) => offending(f, readFileSync(join(root, f), "utf8"), [ISSUE, ...PROCESS_WORDS]))
    expect(found).toEqual([])
  })

  test("README.md and docs/: every relative link, heading anchor and backticked path exists", () => {
    const broken = markdown.flatMap((f) => {
      const text = readFileSync(join(root, f), "utf8")
      return [...brokenReferences(f, text), ...missingPaths(f, text)]
    })
    expect(broken).toEqual([])
  })

  test("sim/ and src/: every repository path named exists", () => {
    expect(code.flatMap((f) => missingPaths(f, readFileSync(join(root, f), "utf8")))).toEqual([])
  })

  test("the README stays short and keeps its two commands first", () => {
    const lines = readFileSync(join(root, "README.md"), "utf8").split("\n")
    expect(lines.length).toBeLessThan(250)
    expect(lines[3]).toMatch(/^bash scripts\/install-system\.sh && npm ci && npm start /)
    expect(lines[4]).toMatch(/^bash scripts\/install-system\.sh && npm ci && npm test /)
  })

  test("the CLI's help: clean, and each command names the page with its details", () => {
    const program = buildProgram()
    const names = program.commands.map((c) => c.name())
    expect(names).toEqual(expect.arrayContaining(["sim", "lab", "view", "node", "campaign", "check", "bench"]))
    for (const command of [program, ...program.commands]) {
      const text = helpOf(command)
      const where = `electlab ${command === program ? "" : command.name() + " "}--help`
      expect(offending(where, text, [ISSUE, HASH_NUMBER, ...PROCESS_WORDS])).toEqual([])
      const details = /\nDetails: (\S+)/.exec(text)
      expect(details, where).not.toBeNull()
      expect(existsSync(join(root, details![1])), `${where}: ${details![1]}`).toBe(true)
      expect(text.trimEnd().split("\n").at(-1), where).toMatch(/^Details: /)
    }
  })

  test("the help read here is what the command line prints", () => {
    const lab = buildProgram().commands.find((c) => c.name() === "lab")!
    expect(spawnedHelp(["lab"])).toBe(helpOf(lab))
  })

  test("the checks catch what they are for", () => {
    expect(offending("x", "frames travel unauthenticated, as before issue 11", [ISSUE])).toHaveLength(1)
    expect(offending("x", "see (#20) and Issue #8", [ISSUE, HASH_NUMBER])).toHaveLength(2)
    expect(offending("x", "see #20", [ISSUE, HASH_NUMBER])).toHaveLength(1)
    expect(offending("x", "see lab-guide.md#8-bus-traffic or [8](#8-bus-traffic)", [HASH_NUMBER])).toEqual([])
    expect(offending("x", "a machine shared with six other agents, under the lock", PROCESS_WORDS)).toHaveLength(3)
    expect(offending("x", "an MQTT clean session; agent: false", PROCESS_WORDS)).toEqual([])
    expect(brokenReferences("README.md", "[a](docs/nothing.md) `sim/lab/none.ts` [b](docs/lab.md#no-such-heading)")).toHaveLength(3)
    expect(brokenReferences("README.md", "[a](docs/lab.md#the-web-lab-replay) `sim/lab/lab.ts` `src/core/`")).toEqual([])
    expect(missingPaths("x", "see ../shared/DESIGN.md and docs/gone.md")).toEqual(["x: names missing docs/gone.md"])
    expect(slug("Seed 004's example: 10 against 43 (we count 44)")).toBe("seed-004s-example-10-against-43-we-count-44")
  })
})
