// The registry is the one place an algorithm's name and wire number are written: every
// name the CLI, the manifest, the logs and the charts use comes from its descriptor.
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
