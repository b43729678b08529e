// Headless lab scripts: one command a line, run in order.
//
//   # comment
//   wait-agreement [TIMEOUT_MS]       until every live board names the highest live board
//   sleep MS                          let time pass
//   at MS <command>                   wait until MS after the lab was ready, then run it
//   crash N | crash coordinator       the service's crash action (the board goes silent)
//   recover N | recover crashed       the recover action (every crashed board, for "crashed")
//   kill N | kill coordinator         kill the board's VM (power off)
//   restart N | restart killed        start its VM again (every killed board, for "killed")
//   repeat K                          run the lines after it, up to `end`, K times
//   end

import { InputError, parseInteger, readInputFile } from "../config/input"
import { Role } from "../../src/core/contract"
import type { Lab } from "./lab"
import { sleep } from "./lab"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { ROOT } from "../config/root"

export type ScriptStep =
  | { kind: "wait-agreement"; timeoutMs: number; line: number }
  | { kind: "sleep"; ms: number; line: number }
  | { kind: "at"; ms: number; step: ScriptStep; line: number }
  | { kind: "action"; action: "crash" | "recover" | "kill" | "restart"; target: string; line: number }
  | { kind: "repeat"; times: number; body: ScriptStep[]; line: number }

const ACTIONS = ["crash", "recover", "kill", "restart"] as const

export function parseLabScript(text: string, file: string): ScriptStep[] {
  const lines = text.split("\n")
  let i = 0
  function block(inRepeat: boolean): ScriptStep[] {
    const steps: ScriptStep[] = []
    while (i < lines.length) {
      const lineNo = i + 1
      const raw = lines[i++].replace(/#.*/, "").trim()
      if (raw === "") continue
      const where = `${file}:${lineNo}`
      const words = raw.split(/\s+/)
      if (words[0] === "end") {
        if (!inRepeat) throw new InputError("'end' without 'repeat'", where)
        return steps
      }
      if (words[0] === "repeat") {
        if (words.length !== 2) throw new InputError("expected: repeat K", where)
        const times = parseInteger(words[1], where, 1, 1000)
        steps.push({ kind: "repeat", times, body: block(true), line: lineNo })
        continue
      }
      steps.push(parseStep(words, where, lineNo))
    }
    if (inRepeat) throw new InputError("'repeat' without 'end'", file)
    return steps
  }
  return block(false)
}

function parseStep(words: string[], where: string, line: number): ScriptStep {
  const [verb, ...args] = words
  if (verb === "wait-agreement") {
    if (args.length > 1) throw new InputError("expected: wait-agreement [TIMEOUT_MS]", where)
    return { kind: "wait-agreement", timeoutMs: args[0] ? parseInteger(args[0], where, 1, 3_600_000) : 30_000, line }
  }
  if (verb === "sleep") {
    if (args.length !== 1) throw new InputError("expected: sleep MS", where)
    return { kind: "sleep", ms: parseInteger(args[0], where, 0, 3_600_000), line }
  }
  if (verb === "at") {
    if (args.length < 2) throw new InputError("expected: at MS <command>", where)
    return { kind: "at", ms: parseInteger(args[0], where, 0, 3_600_000), step: parseStep(args.slice(1), where, line), line }
  }
  if ((ACTIONS as readonly string[]).includes(verb)) {
    if (args.length !== 1) throw new InputError(`expected: ${verb} N`, where)
    const target = args[0]
    const named = { crash: "coordinator", kill: "coordinator", recover: "crashed", restart: "killed" }[verb as (typeof ACTIONS)[number]]
    if (target !== named && !/^\d+$/.test(target))
      throw new InputError(`'${target}' is neither a board number nor '${named}'`, where)
    return { kind: "action", action: verb as (typeof ACTIONS)[number], target, line }
  }
  throw new InputError(
    `unknown command '${verb}'; known: wait-agreement, sleep, at, crash, recover, kill, restart, repeat, end`,
    where,
  )
}

/** Refuses, before the lab boots, a script that names a board the lab does not have. */
export function checkScriptBoards(steps: ScriptStep[], ids: number[], file: string): void {
  for (const step of steps) {
    if (step.kind === "repeat") checkScriptBoards(step.body, ids, file)
    const action = step.kind === "at" ? step.step : step
    if (action.kind === "action" && /^\d+$/.test(action.target) && !ids.includes(Number(action.target)))
      throw new InputError(`no board ${action.target} in this lab (boards: ${ids.join(",")})`, `${file}:${step.line}`)
  }
}

export function readLabScript(file: string): ScriptStep[] {
  return parseLabScript(readInputFile(scriptFile(file), "script"), file)
}

/** A script file, or the name of one that comes with electlab ("failover-10": sim/lab/scripts/failover-10.txt). */
export function scriptFile(name: string): string {
  const shipped = join(ROOT, "sim", "lab", "scripts", `${name}.txt`)
  return !existsSync(name) && /^[\w-]+$/.test(name) && existsSync(shipped) ? shipped : name
}

/** Board numbers a step acts on, given the lab's state now. */
function targets(lab: Lab, action: string, target: string, where: string): number[] {
  if (/^\d+$/.test(target)) {
    const node = Number(target)
    if (!lab.boards.has(node)) throw new InputError(`no board ${node} in this lab`, where)
    return [node]
  }
  if (target === "coordinator") {
    const c = lab.coordinator()
    if (c === null) throw new InputError(`'${action} coordinator' while the boards do not agree on one`, where)
    return [c]
  }
  if (target === "crashed") return [...lab.boards.values()].filter((b) => b.powered && b.role === Role.Crashed).map((b) => b.node)
  return [...lab.boards.values()].filter((b) => !lab.isPowered(b.node)).map((b) => b.node)
}

export async function runLabScript(lab: Lab, steps: ScriptStep[], file: string): Promise<void> {
  for (const step of steps) {
    const where = `${file}:${step.line}`
    switch (step.kind) {
      case "wait-agreement":
        await lab.waitForAgreement(step.timeoutMs)
        break
      case "sleep":
        await sleep(step.ms)
        break
      case "at":
        if (lab.now() < step.ms) await sleep(step.ms - lab.now())
        await runLabScript(lab, [step.step], file)
        break
      case "repeat":
        for (let k = 0; k < step.times; k++) await runLabScript(lab, step.body, file)
        break
      case "action":
        for (const node of targets(lab, step.action, step.target, where)) await lab[step.action](node)
        break
    }
  }
}
