// The virtual lab: a local Jacdac bus hub, one DeviceScript VM per board running the
// compiled firmware, and the lab's own seat on the bus to crash and recover boards.
// The lab follows each board through its structured log (typed events) and tracks every
// transition: failovers, recoveries, restarts.

import { performance } from "node:perf_hooks"
import { algorithmName } from "../../src/core/algorithms"
import { Role, type Timing } from "../../src/core/contract"
import { checkCluster } from "../../src/core/checker"
import { makeBid } from "../../src/core/bid-ring"
import type { Algorithm } from "../../src/core/frame"
import { join } from "node:path"
import { LabMember, vmCommand } from "./board-vm"
import type { BoardEvent } from "./board-event"
import { type BoardState, boardRoleName, emptyBoard, isLive } from "./board-state"
import { Broker, freePort, waitForPort } from "./broker"
import { BusControl } from "./bus-control"
import { buildFirmwareImage, buildLabFirmware, type FirmwareImage, LAB_TOPIC_PREFIX, labImageConfig, removeFirmwareImage } from "./firmware-image"
import { ROOT } from "../config/root"
import { labAlgorithmMismatch } from "./program"
import { type Credentials, nodeUser } from "./broker-access"
import { BusHub, HUB_PORT } from "./hub"
import { CoordinatorReigns } from "./reigns"
import { chmodSync, writeFileSync } from "node:fs"
import { newKeyHex } from "../auth/keys"
import { sleep } from "./wait"
import { AppTally } from "./app-tally"
import { describeStalls, HostStalls } from "./stalls"
import { type ClusterSpec, defaultSpec } from "../config/cluster-spec"
import { clusterArguments } from "../config/cluster-config"

/** (re-exported: lab scripts and tests pause with it) */
export { sleep }

export interface LabOptions {
  ids: number[]
  algorithm: number
  group: number
  timing: Timing
  /** bid-ring: each board's suitability, aligned with `ids` (absent: all 0). */
  suitability?: number[]
  /** Bus faults injected by the hub. */
  loss?: number
  delayMs?: number
  seed?: number
  /** The bus hub's port (default: any free one; devtools: 8082). */
  port?: number
  /** How election frames travel: the Jacdac bus (default) or MQTT through a local mosquitto. */
  transport?: "bus" | "mqtt"
  /** With mqtt: these ids run as host nodes (`electlab node`) instead of VMs. */
  hostNodes?: number[]
  brokerPort?: number
  /** Authenticated frames with a key made for this run (default true). */
  auth?: boolean
  /** Boards that get another key than the group's (tests: they must show misconfigured). */
  wrongKeyBoards?: number[]
  /** A rogue VM with this id (not a member) forging frames with a wrong key (src/attacks/rogue.ts). */
  rogue?: number
  /** With mqtt and a key: extra broker logins that publish frames but hold no key and no node id (attack tests). */
  brokerGuests?: string[]
  /** "devtools": use a running `devs devtools` as the bus instead of the lab's hub (no frame counts, no faults). */
  hub?: "lab" | "devtools"
  /** The program the boards run (a .ts file in the project on the election API); default src/main.ts. */
  program?: string
  /** KB of heap each VM board holds from boot on (src/firmware/ballast.ts): headroom measurements. */
  ballastKb?: number
}

/** One transition: a failover (crash, kill of the coordinator), a recovery or a restart. */
export interface Transition {
  /** What started it: "crash 5", "kill 5", "recover 5", "restart 5". */
  trigger: string
  /** ms since the lab was ready. */
  startedAt: number
  coordinatorBefore: number | null
  coordinatorAfter: number | null
  /** From the trigger to the moment every live board names the new coordinator, ms. */
  durationMs: number | null
  /** Election frames sent by all boards in that time (heartbeats not counted). */
  electionFrames: number
  /** The same by kind: { REQUEST: 1, TABLE: 1, ... }. */
  frameKinds: Record<string, number>
  /** Jacdac frames the bus carried in that time (all traffic: announces, heartbeats, events). */
  busFrames: number
  /**
   * How long, in that time, more than one live board held the coordinator role, ms: each
   * board's role changes on its own clock (mapped to the host's), so the order is causal,
   * not the order in which the lines happened to reach the lab.
   */
  overlapMs: number
  /** With an overlap: who held the role when (ms on startedAt's clock, each board's mapped to the host's), to trace it. */
  reigns?: string
  /**
   * The longest time any process of the lab (a board's, or the lab's own, which carries the
   * bus) did not run during the transition, ms: a process stalled for a good part of the
   * answer timeout can make a timing-bound election elect two coordinators.
   */
  stallMs: number
  /** With an overlap: the processes that stalled longest, "11: 240 ms, lab: 60 ms". */
  stalls?: string
}

/** The old name: every transition, not only failovers. */
export type Failover = Transition



export type { BoardState }

/** How much longer than an agreement's timeout booting boards may take (VMs on a loaded host). */
const BOOT_ALLOWANCE_MS = 240_000
/**
 * A program that has run this long in its VM without a line of the election's has not started
 * one: its first line (the boot nonce) comes within a second of its start, a few on a busy host.
 */
export const PROGRAM_SILENT_MS = 15_000
/** How often the views are told of new heap figures alone (each board's runner writes them every 250 ms). */
const HEAP_SHOWN_MS = 1000
/** Problems a board reports while it runs (a duplicate id, another group's key): hints under check, not its configuration. */
const RUNTIME_PROBLEMS = ["duplicate-node-id", "key-mismatch"]

export interface LabLogLine {
  /** ms since the lab started */
  at: number
  text: string
}

interface OpenTransition {
  record: Transition
  /** True once the lab has seen the trigger take effect on the board itself. */
  observed: () => boolean
  at: number
  txAtStart: number
  busAtStart: number
}

/** Lines the lab's event log keeps. */
export const LOG_LINES = 500
/** Panics whose line the headless summary repeats. */
export const PANIC_NOTES = 20

export class Lab {
  readonly hub: BusHub
  readonly boards = new Map<number, BoardState>()
  /** Application messages the boards logged (programs on the election API). */
  readonly app = new AppTally()
  /** Every transition, in order. */
  readonly transitions: Transition[] = []
  /** @deprecated the old name of `transitions` (it always held every transition) */
  get failovers(): Transition[] {
    return this.transitions
  }
  /** The last LOG_LINES lines noted (the dashboard's and the headless run's event log). */
  readonly log: LabLogLine[] = []
  /** Lines noted since the lab started, those the log no longer keeps included. */
  logCount = 0
  /** When the views were last told of heap figures alone. */
  private heapShownAt = 0
  /** Programs stopped by the VM (out of memory, an uncaught exception) over the whole run. */
  panics = 0
  /** The event log's line for each of the first PANIC_NOTES panics, with its time. */
  readonly panicNotes: string[] = []
  /** What each board's heap looked like when it last ran out, until its panic's note says it. */
  private readonly outOfHeap = new Map<number, string>()
  firmwareBytes = 0
  /** The run's group key (64 hex digits), or null without authentication. */
  readonly authKey: string | null
  private members = new Map<number, LabMember>()
  private extraImages: FirmwareImage[] = []
  private control: BusControl | null = null
  private image: FirmwareImage | null = null
  private broker: Broker | null = null
  private startedAt = performance.now()
  private readyAt = 0
  private stalls = new HostStalls()
  private open: OpenTransition | null = null
  private totalTx = 0
  private lastTxAt = 0
  /** Who held the coordinator role when, each board's events on its own clock (pruned at each transition). */
  private reigns = new CoordinatorReigns()
  private listeners: (() => void)[] = []
  private eventListeners: ((e: BoardEvent) => void)[] = []
  private stopped = false

  constructor(readonly options: LabOptions) {
    this.hub = new BusHub({
      // the lab's own hub on any free port (labs side by side); devtools serves 8082
      port: options.port ?? (options.hub === "devtools" ? HUB_PORT : 0),
      loss: options.loss,
      delayMs: options.delayMs,
      seed: options.seed,
    })
    for (const node of options.ids) this.boards.set(node, emptyBoard(node))
    this.authKey = options.auth === false ? null : newKeyHex()
  }

  /** Build the firmware, start the bus (and the broker), boot every board and host node. */
  async start(): Promise<void> {
    const o = this.options
    this.stalls.watchSelf()
    const hostNodes = o.hostNodes ?? []
    if (o.transport !== "mqtt" && hostNodes.length) throw new Error("host nodes join over MQTT: use the mqtt transport")
    // the bus port first: a taken port is refused now, not after the firmware build
    if (o.hub === "devtools")
      await waitForPort(this.hub.port, 1000).catch(() => {
        throw new Error(`nothing listens on 127.0.0.1:${this.hub.port}: start \`npx devs devtools\` first`)
      })
    else await this.hub.start()
    if (o.transport === "mqtt") {
      // with a key, the broker checks a password per node and each node's topic rights
      const port = o.brokerPort ?? (await freePort())
      this.broker = this.authKey ? new Broker(port, { prefix: LAB_TOPIC_PREFIX, group: o.group, ids: o.ids, guests: o.brokerGuests }) : new Broker(port)
      await this.broker.start()
      this.note(`mosquitto on ${this.broker.url}${this.authKey ? " (a password per node, per-node topic rights)" : " (anonymous clients)"}`)
    }
    this.note(`building the firmware (${algorithmName(o.algorithm)}, boards ${o.ids.join(",")})`)
    const image = await this.buildImage()
    this.image = image
    this.firmwareBytes = image.bytes
    const imageFor = await this.attackImages(image)
    this.note(`bus hub on 127.0.0.1:${this.hub.port}; firmware ${image.bytes} bytes; frames over ${o.transport ?? "bus"}`)
    for (const node of o.ids) {
      const host = hostNodes.includes(node)
      const args = host ? this.hostNodeCommand(node) : vmCommand(imageFor(node).path, node)
      const member = new LabMember(node, args, (e) => this.onEvent(e), (m, code) => this.onExit(m, code), host, this.hub.port)
      this.members.set(node, member)
      member.start()
    }
    if (o.rogue !== undefined) {
      const rogue = o.rogue
      const member = new LabMember(rogue, vmCommand(imageFor(rogue).path, rogue), (e) => this.onEvent(e), (m, code) => this.onExit(m, code), false, this.hub.port)
      this.members.set(rogue, member)
      member.start()
    }
    this.control = new BusControl(this.hub.port)
    await this.control.connect()
  }

  /** Images with another key for wrong-key boards and the rogue; which image each board runs. */
  private async attackImages(image: FirmwareImage): Promise<(node: number) => FirmwareImage> {
    const o = this.options
    const wrong = o.wrongKeyBoards ?? []
    if (!wrong.length && o.rogue === undefined) return () => image
    // one image serves both, with two other keys: the rogue is recognised by its id
    const attack = await buildFirmwareImage(
      { ...labImageConfig(this.firmwareSettings()), authKey: newKeyHex(), rogue: o.rogue, rogueKey: newKeyHex() },
      `ws-${process.pid}-wrongkey`,
    )
    this.extraImages.push(attack)
    if (wrong.length) this.note(`boards ${wrong.join(",")} run with a wrong key`)
    if (o.rogue !== undefined) this.note(`rogue board ${o.rogue} forges frames with a wrong key`)
    return (node) => (node === o.rogue || wrong.includes(node) ? attack : image)
  }

  /**
   * Reads every VM board's service registers over the bus (as a tool on a real lab's bus
   * would): counters, epoch and nonce come from there; roles still come from the log's events,
   * which arrive first. Boards that do not answer keep their last figures.
   */
  async readRegisters(): Promise<void> {
    if (!this.control) return
    await this.control.refresh().catch((): number[] => [])
    for (const b of this.boards.values()) {
      if (!b.powered || !b.booted || this.members.get(b.node)?.host) continue
      const r = await this.control.readRegisters(b.node).catch((): null => null)
      if (!r || !b.powered) continue
      b.epoch = r.epoch
      b.framesSent = r.framesSent
      b.framesReceived = r.framesReceived
      // the register counts frames that did not decode; the log's drop lines count those too,
      // and the frames the inbox or the outbox had no room for
      b.drops = Math.max(b.drops, r.framesDropped)
      b.nonce = r.nonce
      b.registerRole = r.role
    }
    this.changed()
  }

  /** The compiled firmware the VMs run (null before start). */
  firmwarePath(): string | null {
    return this.image ? this.image.path : null
  }

  /** Everything the firmware depends on: the options, the key, the broker and its logins. */
  private firmwareSettings() {
    const b = this.broker
    return { ...this.options, authKey: this.authKey, broker: b ? { port: b.port, credentials: b.credentials } : null }
  }

  /** The lab's firmware, built from its whole configuration (the start and retime both use it). */
  private buildImage(): Promise<FirmwareImage> {
    return buildLabFirmware(this.firmwareSettings())
  }

  /**
   * A login of the lab's broker when it checks passwords ("node-3", "observer", "web"; see
   * broker-access.ts), null when it takes anonymous clients. Never logged.
   */
  brokerLogin(user: string): Credentials | null {
    return this.broker?.credentials?.get(user) ?? null
  }

  /** The broker's address, when frames go over MQTT. */
  brokerUrl(): string | null {
    return this.broker ? this.broker.url : null
  }

  /** Stop or start the broker (tests: a broker restart must be survived). */
  async stopBroker() {
    this.note("broker stopped")
    await this.broker?.stop()
  }

  async startBroker() {
    await this.broker?.start()
    this.note("broker started")
  }

  private hostNodeCommand(node: number): string[] {
    const o = this.options
    const spec: ClusterSpec = { ...defaultSpec(), algorithm: o.algorithm, ids: o.ids, group: o.group, timing: o.timing, suitability: o.suitability }
    return [
      join(ROOT, "bin", "electlab.js"),
      "node",
      "--broker", this.broker!.url,
      "--id", String(node),
      ...clusterArguments(spec, "node"),
      "--stdin-control",
      ...(this.authKey ? ["--key-file", this.secretFile("lab.key", this.authKey)] : []),
      ...this.hostNodeLogin(node),
    ]
  }

  private hostNodeLogin(node: number): string[] {
    const login = this.brokerLogin(nodeUser(node))
    if (!login) return []
    return ["--mqtt-user", login.username, "--mqtt-password-file", this.secretFile(`${login.username}.password`, login.password)]
  }

  /**
   * A secret in a file of the build folder (host nodes read the key and their password
   * there): 0600 in a 0700 folder, removed with it when the lab stops or the process exits.
   */
  private secretFile(name: string, secret: string): string {
    const file = join(this.image!.folder, name)
    writeFileSync(file, secret + "\n", { mode: 0o600 })
    chmodSync(file, 0o600)
    return file
  }

  /**
   * Resolves once the last crash/recover/kill/restart has taken effect and every live board
   * agrees on the highest live board; ms since the call.
   */
  async waitForAgreement(timeoutMs = 30_000): Promise<number> {
    const t0 = performance.now()
    // the election's time counts from when every powered board has booted: a VM's start is
    // the host's speed (twelve on a busy machine can take a minute), not the election's
    let electing = t0
    while (this.open || !this.agreement().agreed) {
      if (this.stopped) throw new Error("the lab stopped")
      const now = performance.now()
      this.checkPrograms(now)
      const booting = [...this.boards.values()].filter((b) => b.powered && !b.booted).map((b) => b.node)
      if (booting.length) electing = now
      if (booting.length && now - t0 > timeoutMs + BOOT_ALLOWANCE_MS)
        throw new Error(`boards ${booting.join(",")} not booted after ${Math.round(now - t0)} ms: ${this.describeBoards()}`)
      if (now - electing > timeoutMs)
        throw new Error(`no agreement ${timeoutMs} ms after every board had booted: ${this.describeBoards()}`)
      await sleep(20)
    }
    if (!this.readyAt) this.readyAt = performance.now()
    return performance.now() - t0
  }

  /**
   * Throws at once, in the board's own words, when a board reported a problem of its
   * configuration (it will never take part), or when a board's program has run for
   * PROGRAM_SILENT_MS without starting an election.
   */
  private checkPrograms(now: number) {
    for (const b of this.boards.values()) {
      if (!b.powered) continue
      if (b.problem !== null) throw new Error(`board ${b.node} takes no part: ${explainProblem(b.problem)}`)
      const member = this.members.get(b.node)
      if (!member || member.host || b.programStarted || member.deployedAt === null) continue
      if (now - member.deployedAt > PROGRAM_SILENT_MS)
        throw new Error(
          `board ${b.node} has run its program for ${Math.round((now - member.deployedAt) / 1000)} s and started no election: ` +
            `the program never called startElection or createElection (import them from "electlab"; npx electlab init writes a starter src/main.ts)`,
        )
    }
  }

  /**
   * Resolves once no board has sent an election frame for `quietMs` (an election's last
   * answers may still be on their way after everyone agrees); ms since the call.
   */
  async waitForQuiet(quietMs = 300, timeoutMs = 30_000): Promise<number> {
    const t0 = performance.now()
    while (performance.now() - this.lastTxAt < quietMs) {
      if (this.stopped) throw new Error("the lab stopped")
      if (performance.now() - t0 > timeoutMs) throw new Error(`election frames still flowing after ${timeoutMs} ms: ${this.describeBoards()}`)
      await sleep(20)
    }
    return performance.now() - t0
  }

  /** Live boards: powered, booted, not crashed. */
  liveBoards(): BoardState[] {
    // a misconfigured board takes no part (a wrong key, a duplicate id)
    return [...this.boards.values()].filter((b) => isLive(b) && b.role !== Role.Misconfigured)
  }

  /** Agreement as the seeds define it: the highest live board leads and every live board knows it. */
  agreement(): { agreed: boolean; coordinator: number | null } {
    // a board still booting has not had its say
    if ([...this.boards.values()].some((b) => b.powered && !b.booted)) return { agreed: false, coordinator: null }
    const live = new Set(this.liveBoards())
    if (live.size === 0) return { agreed: false, coordinator: null }
    // the core's checker; bid-ring ranks by bid (suitability, then id)
    const verdict = checkCluster(
      [...this.boards.values()].map((b) => ({
        id: b.node,
        live: live.has(b),
        role: b.role ?? Role.Follower,
        coordinator: b.coordinator,
        epoch: b.epoch,
        rank: makeBid(this.options.suitability?.[this.options.ids.indexOf(b.node)] ?? 0, b.node),
        members: this.options.ids,
      })),
    )
    const agreed = verdict.violations.length === 0
    return { agreed, coordinator: agreed ? verdict.coordinator : null }
  }

  /** The agreed coordinator, or null. */
  coordinator(): number | null {
    return this.agreement().coordinator
  }

  async crash(node: number) {
    this.check(node)
    this.beginFailover(`crash ${node}`, () => this.boards.get(node)!.role === Role.Crashed)
    await this.setCrashed(node, true)
  }

  async recover(node: number) {
    this.check(node)
    this.beginFailover(`recover ${node}`, () => this.liveBoards().some((b) => b.node === node))
    await this.setCrashed(node, false)
  }

  /** A board's service action on the bus; a host node's command on its stdin. */
  private async setCrashed(node: number, crashed: boolean) {
    const member = this.members.get(node)!
    if (member.host) member.send(crashed ? "crash" : "recover")
    else await this.control!.setCrashed(node, crashed)
  }

  /** Power the board off: its VM is killed. */
  async kill(node: number) {
    this.check(node)
    this.beginFailover(`kill ${node}`, () => !this.boards.get(node)!.powered)
    // the power is off from this moment (SIGKILL), not from when the exit is reported:
    // counted live until then, it would overlap with its successor
    const b = this.boards.get(node)!
    b.powered = false
    b.booted = false
    this.reigns.end(node, performance.now())
    await this.members.get(node)!.kill()
    this.checkFailover()
    this.changed()
  }

  /** Power the board on again: a fresh VM boots the firmware. */
  async restart(node: number) {
    this.check(node)
    const member = this.members.get(node)!
    if (member.running) return
    this.beginFailover(`restart ${node}`, () => this.liveBoards().some((b) => b.node === node))
    const board = this.boards.get(node)!
    // a new process, the same board: its heap's peak so far stays
    Object.assign(board, emptyBoard(node), { powered: true, heapPeak: board.heapPeak, heapKinds: board.heapKinds })
    // a fresh VM: a new clock
    this.reigns.newClock(node)
    member.start()
    this.changed()
  }

  /** Reboot every board with new timing (the web view's slow motion): the firmware is rebuilt. */
  async retime(timing: Timing): Promise<void> {
    const o = this.options
    o.timing = timing
    this.closeFailover(null)
    await Promise.all([...this.members.values()].map((m) => m.kill()))
    // the same whole configuration as at the start (the key, the broker logins), new timing
    this.image = await this.buildImage()
    this.note(`timing: answer ${timing.answerTimeout} ms, heartbeat ${timing.heartbeatInterval} ms; every board reboots`)
    this.reigns.clear()
    for (const [node, old] of this.members) {
      const args = old.host ? this.hostNodeCommand(node) : vmCommand(this.image.path, node)
      const member = new LabMember(node, args, (e) => this.onEvent(e), (m, code) => this.onExit(m, code), old.host, this.hub.port)
      this.members.set(node, member)
      Object.assign(this.boards.get(node)!, emptyBoard(node))
      member.start()
    }
    this.changed()
  }

  isPowered(node: number): boolean {
    return this.members.get(node)?.running ?? false
  }

  /** ms since the lab was ready (first agreement), or since it started. */
  now(): number {
    return performance.now() - (this.readyAt || this.startedAt)
  }

  onChange(listener: () => void) {
    this.listeners.push(listener)
  }

  /** Every board's every log event, as it arrives (also across reboots, which reset BoardState). */
  onBoardEvent(listener: (e: BoardEvent) => void): () => void {
    this.eventListeners.push(listener)
    return () => {
      this.eventListeners = this.eventListeners.filter((l) => l !== listener)
    }
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.stalls.stop()
    await Promise.all([...this.members.values()].map((m) => m.kill()))
    if (this.control) await this.control.close().catch((): void => undefined)
    await this.hub.stop()
    await this.broker?.dispose()
    if (this.image) removeFirmwareImage(this.image)
    for (const extra of this.extraImages) removeFirmwareImage(extra)
  }

  describeBoards(): string {
    return [...this.boards.values()]
      .map((b) => `${b.node}:${boardRoleName(b)}→${b.coordinator}`)
      .join(" ")
  }

  private check(node: number) {
    if (!this.boards.has(node)) throw new Error(`no board ${node} (boards: ${this.options.ids.join(",")})`)
  }

  private beginFailover(trigger: string, observed: () => boolean) {
    this.closeFailover(null)
    const at = performance.now()
    this.open = {
      record: {
        trigger,
        startedAt: Math.round(this.now()),
        coordinatorBefore: this.coordinator(),
        coordinatorAfter: null,
        durationMs: null,
        electionFrames: 0,
        frameKinds: {},
        busFrames: 0,
        overlapMs: 0,
        stallMs: 0,
      },
      observed,
      at,
      txAtStart: this.totalTx,
      busAtStart: this.hub.frames,
    }
    // only reigns that reach into this transition matter from now on
    this.reigns.prune(at)
    this.note(trigger)
  }

  private closeFailover(coordinator: number | null) {
    const open = this.open
    if (!open) return
    this.open = null
    const r = open.record
    if (coordinator !== null) {
      r.coordinatorAfter = coordinator
      r.durationMs = Math.round(performance.now() - open.at)
    }
    r.electionFrames = this.totalTx - open.txAtStart
    r.busFrames = this.hub.frames - open.busAtStart
    r.overlapMs = Math.round(this.reigns.overlapBetween(open.at, performance.now()))
    const stalls = this.stalls.worstBetween(open.at, performance.now())
    r.stallMs = stalls.length ? stalls[0].ms : 0
    if (r.overlapMs > 0) {
      // on the transitions' clock (startedAt): ms since the lab was ready
      r.reigns = this.reigns.describeBetween(open.at, performance.now(), this.readyAt || this.startedAt)
      r.stalls = describeStalls(stalls)
      this.note(`two coordinators for ${r.overlapMs} ms: ${r.reigns}; processes stalled: ${r.stalls || "none"}`)
    }
    this.transitions.push(r)
    if (coordinator !== null)
      this.note(`agreed on ${coordinator} after ${r.durationMs} ms (${r.electionFrames} election frames)`)
  }

  private onEvent(e: BoardEvent) {
    const b = this.boards.get(e.node)
    if (!b) return
    this.app.onEvent(e)
    // every line refines the board's clock offset; role changes are placed by it
    const at = this.reigns.hostTime(e.node, e.at, e.t)
    // a line of the election's own (not the VM runner's heap, stall or panic lines)
    if (e.t !== null) b.programStarted = true
    switch (e.event) {
      case "boot":
        b.booted = true
        break
      case "nonce":
        b.nonce = e.nonce
        break
      case "role":
        b.role = e.role
        b.coordinator = e.coordinator
        b.epoch = e.epoch
        this.reigns.roleAt(e.node, e.role === Role.Coordinator, at)
        this.note(`${e.node} ${boardRoleName(b)}${e.role === Role.Follower ? ` of ${e.coordinator}` : ""} (epoch ${e.epoch})`)
        break
      case "tx":
        b.tx++
        this.totalTx++
        this.lastTxAt = performance.now()
        if (this.open) this.open.record.frameKinds[e.kind] = (this.open.record.frameKinds[e.kind] ?? 0) + 1
        break
      case "rx":
        b.rx++
        break
      case "drop":
        b.drops++
        break
      case "refused":
        b.refused += e.count
        b.refusedWhy[e.why] = (b.refusedWhy[e.why] ?? 0) + e.count
        break
      case "err":
        b.errors++
        this.note(`${e.node} error: ${e.where} ${e.message}`)
        break
      case "config":
        this.note(`${e.node} configuration problem: ${e.problem}`)
        // at boot; a duplicate id or another group's key shows while the board runs (hints, checked)
        if (e.problem !== "" && !RUNTIME_PROBLEMS.includes(e.problem)) b.problem = e.problem
        break
      case "stall":
        this.stalls.record(e.node, e.at, e.ms)
        break
      case "heap":
        b.heapLive = e.live
        b.heapPeak = Math.max(b.heapPeak ?? 0, e.peak)
        break
      case "heapkinds":
        if (e.peak >= (b.heapPeak ?? 0)) b.heapKinds = e.kinds
        break
      case "oom":
        this.outOfHeap.set(e.node, `; ${e.asked ? `${e.asked} bytes asked, ` : ""}${e.free} bytes were free, the largest block ${e.largest}${heapKindsText(e.kinds)}`)
        break
      case "panic": {
        // the program is gone until the VM restarts it: it holds no role meanwhile
        b.booted = false
        b.panics++
        this.panics++
        this.reigns.end(e.node, at)
        const heap = this.outOfHeap.get(e.node) ?? ""
        this.outOfHeap.delete(e.node)
        const text = `${e.node} panicked (${e.code}${panicWhy(this.members.get(e.node)?.rawTail ?? [])}${heap}); the VM restarts it`
        this.note(text)
        if (this.panicNotes.length < PANIC_NOTES) this.panicNotes.push(`${Math.round(performance.now() - this.startedAt)} ms ${text}`)
        break
      }
    }
    for (const l of this.eventListeners) l(e)
    // a board's heap figures come four times a second: the views hear of them once a second
    if (e.event === "heap" || e.event === "heapkinds") {
      if (e.at - this.heapShownAt < HEAP_SHOWN_MS) return
      this.heapShownAt = e.at
    }
    this.checkFailover()
    this.changed()
  }

  private checkFailover() {
    if (!this.open || !this.open.observed()) return
    const { agreed, coordinator } = this.agreement()
    if (agreed) this.closeFailover(coordinator)
  }

  private onExit(member: LabMember, code: number | null) {
    const b = this.boards.get(member.nodeId)
    if (b) {
      b.powered = false
      b.booted = false
    }
    this.reigns.end(member.nodeId, performance.now())
    if (!this.stopped) {
      const last = member.rawTail.at(-1)
      this.note(`board ${member.nodeId}: process exited (${code ?? "killed"})${code && last ? `: ${last}` : ""}`)
    }
    this.changed()
  }

  /** A line in the lab's event log. */
  note(text: string) {
    this.log.push({ at: Math.round(performance.now() - this.startedAt), text })
    this.logCount++
    if (this.log.length > LOG_LINES) this.log.shift()
  }

  /** The kept lines noted after the first `count` (a logCount read earlier). */
  logSince(count: number): LabLogLine[] {
    return this.log.slice(Math.max(0, count - (this.logCount - this.log.length)))
  }

  private changed() {
    for (const l of this.listeners) l()
  }
}

/** A board's configuration problem as a person reads it: quoted, with algorithm numbers named and the fix. */
export function explainProblem(problem: string): string {
  const m = /^the configured algorithm \((\d+)\) is not this image's (\S+)$/.exec(problem)
  if (!m) return `"${problem}"`
  return `"${problem}": ${labAlgorithmMismatch(algorithmName(Number(m[1]) as Algorithm), m[2])}`
}

/**
 * What a board's last lines say of its panic: the exception and the innermost functions of
 * its stack (the VM prints "at name_F12 (pc:34)"), e.g. ": Exception: OutOfMemory, in
 * writeTag < seal < apply"; "" when they say nothing.
 */
export function panicWhy(rawTail: string[]): string {
  const lines = rawTail.map((l) => l.replace(/\x1b\[[0-9;]*m/g, "").replace(/^WASM> /, "").trim())
  let at = lines.length - 1
  while (at >= 0 && !lines[at].includes("Exception")) at--
  if (at < 0) return ""
  const frames: string[] = []
  for (const l of lines.slice(at + 1)) {
    const m = /^at (\S+?)(?:_F\d+)? \(pc:\d+\)$/.exec(l)
    if (!m) break
    if (frames.length < 4) frames.push(m[1])
  }
  return ": " + lines[at] + (frames.length ? ", in " + frames.join(" < ") : "")
}

/** A heap census as a panic note shows it: "; in use: buffer 31,276 bytes in 54 blocks, ...", largest first. */
export function heapKindsText(kinds: Record<string, { blocks: number; bytes: number }>): string {
  const rows = Object.entries(kinds).sort((a, b) => b[1].bytes - a[1].bytes)
  if (rows.length === 0) return ""
  return "; in use: " + rows.map(([name, r]) => `${name} ${r.bytes.toLocaleString("en-US")} bytes in ${r.blocks} blocks`).join(", ")
}
