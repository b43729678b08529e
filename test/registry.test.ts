// The registry is the one place an algorithm's name and wire number are written: every
// name the CLI, the manifest, the logs and the charts use comes from its descriptor.
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import ts from "typescript"
import { describe, expect, test } from "vitest"
import { ALGORITHMS, algorithmName, descriptorNamed, descriptorOf, parseAlgorithm } from "../src/core/algorithms"
import { MAX_ALGORITHM } from "../src/core/frame"

describe("the algorithm registry", () => {
  test("wire numbers 1..MAX_ALGORITHM, each once, and names each once", () => {
    const numbers = ALGORITHMS.map((d) => d.algorithm).sort((a, b) => a - b)
    expect(numbers).toEqual(Array.from({ length: MAX_ALGORITHM }, (_, i) => i + 1))
    const names = ALGORITHMS.map((d) => d.name)
    expect(new Set(names).size).toBe(names.length)
    for (const name of names) expect(name).toMatch(/^[a-z][a-z-]*$/)
  })

  test.each(ALGORITHMS.map((d) => [d.name, d] as const))("%s: name and number lead to one another", (name, d) => {
    expect(algorithmName(d.algorithm)).toBe(name)
    expect(parseAlgorithm(name)).toBe(d.algorithm)
    expect(descriptorNamed(name)).toBe(d)
    expect(descriptorOf(d.algorithm)).toBe(d)
  })

  test("an unknown name or number is no algorithm", () => {
    expect(parseAlgorithm("raft")).toBe(0)
    expect(parseAlgorithm("")).toBe(0)
    expect(parseAlgorithm("Bully")).toBe(0)
    expect(descriptorNamed("raft")).toBeNull()
    expect(descriptorOf(0)).toBeNull()
    expect(descriptorOf(MAX_ALGORITHM + 1)).toBeNull()
    expect(algorithmName(MAX_ALGORITHM + 1)).toBe(`algorithm${MAX_ALGORITHM + 1}`)
  })
})

/** The .ts files under a folder of the repository, installed packages aside. */
function sources(dir: string): string[] {
  const root = join(import.meta.dirname, "..")
  return readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts") && !f.includes("node_modules"))
    .map((f) => `${dir}/${f.split("\\").join("/")}`)
}

/**
 * A quoted string that is an algorithm's name, and where it is not: a topology ("ring", the
 * graph) and a column of `compare --csv` named after a message kind (ECHO).
 */
const NOT_ALGORITHM_NAMES = new Set(["sim/config/topology.ts ring", "sim/campaign/plan.ts ring", "sim/web/page/replay-view.ts ring", "sim/simulator/compare.ts echo"])

const ALGORITHM_NAMES = new Set(ALGORITHMS.map((d) => d.name))

/** In one file's code (comments aside): quoted algorithm names and comparisons with an `Algorithm.X` value. */
function algorithmKnowledge(file: string, text: string): string[] {
  const found: string[] = []
  const isAlgorithmValue = (e: ts.Node) => ts.isPropertyAccessExpression(e) && ts.isIdentifier(e.expression) && e.expression.text === "Algorithm"
  const comparison = [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken]
  const visit = (node: ts.Node) => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && ALGORITHM_NAMES.has(node.text) && !NOT_ALGORITHM_NAMES.has(`${file} ${node.text}`))
      found.push(`${file}: "${node.text}"`)
    if (ts.isBinaryExpression(node) && comparison.includes(node.operatorToken.kind) && (isAlgorithmValue(node.left) || isAlgorithmValue(node.right)))
      found.push(`${file}: ${node.getText()}`)
    if (ts.isCaseClause(node) && isAlgorithmValue(node.expression)) found.push(`${file}: case ${node.expression.getText()}`)
    ts.forEachChild(node, visit)
  }
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true))
  return found
}

describe("algorithm knowledge stays in its module", () => {
  const own = new Set(["src/core/algorithms.ts", ...ALGORITHMS.map((d) => `src/core/${d.name}.ts`)])
  const files = [...sources("src"), ...sources("sim")]

  test("every algorithm has its module", () => {
    for (const file of own) expect(files).toContain(file)
  })

  test("no quoted algorithm name and no comparison with an Algorithm value outside its module and the registry", () => {
    const found = files.filter((f) => !own.has(f)).flatMap((f) => algorithmKnowledge(f, readFileSync(join(import.meta.dirname, "..", f), "utf8")))
    expect(found).toEqual([])
  })

  test("the search finds a name, a comparison and a case, and not a comment or a topology", () => {
    const text = `// "bully" in a comment\nconst a = "bid-ring"\nif (x === Algorithm.Echo) {}\nswitch (x) { case Algorithm.Ring: }\nconst t = "ring"`
    expect(algorithmKnowledge("sim/x.ts", text)).toEqual(['sim/x.ts: "bid-ring"', "sim/x.ts: x === Algorithm.Echo", "sim/x.ts: case Algorithm.Ring", 'sim/x.ts: "ring"'])
    expect(algorithmKnowledge("sim/config/topology.ts", `const t = "ring"`)).toEqual([])
  })
})
