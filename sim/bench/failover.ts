// `npm run bench:failover`: time from a leader's failure to a new leader that every
// surviving member reports, for a 3-member etcd cluster (Raft) and for our improved Bully
// with three host nodes over a local mosquitto, with the same heartbeat and timeout, once
// with the fixed failure detector and once with the adaptive one.
// Two failures: the leader process killed (SIGKILL) and frozen (SIGSTOP, resumed after).
// The host nodes share a group key made for the run (as the virtual lab's boards do), so a
// killed leader's last will is a hint that each survivor checks with a challenge before it
// acts; `auth: false` runs them without one (the last will is then taken at once).

import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import http from "node:http"
import { createInterface } from "node:readline"
import { Broker, freePort, freePorts, waitForPort } from "../lab/broker"
import { parseLogLine } from "../lab/board-vm"
import { ROOT } from "../config/root"
import { Rng } from "../simulator/rng"
import { checkCluster } from "../../src/core/checker"
import { Role } from "../../src/core/contract"
import { algorithmName } from "../../src/core/algorithms"
import { Algorithm } from "../../src/core/frame"
import { parseRole } from "../lab/board-state"
import type { DetectorName } from "../../src/core/failure-detector"
import { median, nearestRank } from "../lab/stats"
import { sleep, until } from "../lab/wait"
import { type Breakdown, type BreakdownSummary, type GapStats, gapStats, summarise, TraceLog } from "./failover-trace"
import { loadavg } from "node:os"
import { newKeyHex } from "../auth/keys"
import { holdSecretFolder, removeSecretFolder } from "../lab/secret-files"
import { bundleHostNode } from "./host-bundle"

export const HEARTBEAT_MS = 50
export const ELECTION_TIMEOUT_MS = 250

export type Failure = "kill" | "freeze"

export interface Stats {
  trials: number
  minMs: number
  medianMs: number
  p90Ms: number
  samples: number[]
}

export function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b)
  return { trials: s.length, minMs: round(s[0]), medianMs: round(median(s)!), p90Ms: round(nearestRank(s, 0.9)!), samples: s.map(round) }
}

const round = (x: number) => Math.round(x * 10) / 10

/** Resolves once the process has exited (a killed one has a signalCode, not an exitCode). */
function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => child.once("exit", () => resolve()))
}
// ---------------------------------------------------------------- etcd

interface EtcdMember {
  name: string
  clientPort: number
  peerPort: number
  dir: string
  child: ChildProcess | null
  id: string
}

class EtcdCluster {
  members: EtcdMember[] = []
  private root = mkdtempSync(join(tmpdir(), "electlab-etcd-"))
  /** Trials in which the new leader took more than one election round (a split vote). */
  splitVotes = 0

  async start() {
    const ports = await freePorts(6)
    for (let i = 1; i <= 3; i++)
      this.members.push({ name: `m${i}`, clientPort: ports[2 * i - 2], peerPort: ports[2 * i - 1], dir: join(this.root, `m${i}`), child: null, id: "" })
    for (const m of this.members) this.spawn(m, "new")
    for (const m of this.members) await waitForPort(m.clientPort, 20_000)
    await until("an etcd leader", () => this.agreedLeader(this.members), 20_000, 20)
    for (const m of this.members) m.id = (await this.status(m))!.header.member_id
  }

  private spawn(m: EtcdMember, state: "new" | "existing") {
    const cluster = this.members.map((x) => `${x.name}=http://127.0.0.1:${x.peerPort}`).join(",")
    m.child = spawn(
      "etcd",
      [
        `--name=${m.name}`,
        `--data-dir=${m.dir}`,
        `--listen-client-urls=http://127.0.0.1:${m.clientPort}`,
        `--advertise-client-urls=http://127.0.0.1:${m.clientPort}`,
        `--listen-peer-urls=http://127.0.0.1:${m.peerPort}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${m.peerPort}`,
        `--initial-cluster=${cluster}`,
        `--initial-cluster-state=${state}`,
        "--initial-cluster-token=electlab-bench",
        `--heartbeat-interval=${HEARTBEAT_MS}`,
        `--election-timeout=${ELECTION_TIMEOUT_MS}`,
        "--logger=zap",
        "--log-level=error",
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    )
    const errors: string[] = []
    m.child.stderr!.on("data", (d: Buffer) => errors.push(d.toString()))
    m.child.once("exit", (code, signal) => {
      if (code) process.stderr.write(`etcd ${m.name} exited with ${code}: ${errors.join("").slice(-400)}\n`)
    })
  }

  /** The member's status (its view of the leader), or null if it does not answer within 200 ms. */
  status(m: EtcdMember): Promise<{ leader: string; raftTerm: string; header: { member_id: string } } | null> {
    return new Promise((resolve) => {
      const req = http.request(
        { host: "127.0.0.1", port: m.clientPort, path: "/v3/maintenance/status", method: "POST", timeout: 200, agent: false },
        (res) => {
          let body = ""
          res.on("data", (d: Buffer) => (body += d))
          res.on("end", () => {
            try {
              resolve(res.statusCode === 200 ? JSON.parse(body) : null)
            } catch {
              resolve(null)
            }
          })
          res.on("error", () => resolve(null))
        },
      )
      req.on("timeout", () => req.destroy())
      req.on("error", () => resolve(null))
      req.end("{}")
    })
  }

  /** The leader every given member reports, or null while they differ or have none. */
  async agreedLeader(members: EtcdMember[]): Promise<{ leader: string; term: number } | null> {
    const all = await Promise.all(members.map((m) => this.status(m)))
    if (all.some((s) => !s || !s.leader || s.leader === "0")) return null
    const leader = all[0]!.leader
    if (!all.every((s) => s!.leader === leader)) return null
    return { leader, term: Math.max(...all.map((s) => Number(s!.raftTerm))) }
  }

  async trial(failure: Failure): Promise<number> {
    const before = await until("a leader before the trial", () => this.agreedLeader(this.members), 20_000, 20)
    const leader = this.members.find((m) => m.id === before.leader)!
    const survivors = this.members.filter((m) => m !== leader)
    const t0 = performance.now()
    leader.child!.kill(failure === "kill" ? "SIGKILL" : "SIGSTOP")
    const after = await until(
      "a new etcd leader",
      async () => {
        const a = await this.agreedLeader(survivors)
        return a && a.leader !== before.leader ? a : null
      },
      10_000,
    )
    const ms = performance.now() - t0
    if (after.term > before.term + 1) this.splitVotes++
    if (failure === "kill") {
      await exited(leader.child!)
      this.spawn(leader, "existing")
    } else leader.child!.kill("SIGCONT")
    await until("all three members back", () => this.agreedLeader(this.members), 20_000, 20)
    return ms
  }

  async stop() {
    for (const m of this.members) {
      m.child?.kill("SIGCONT")
      m.child?.kill("SIGKILL")
    }
    await sleep(100)
    rmSync(this.root, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------- ElectLab host nodes

interface HostProcess {
  id: number
  child: ChildProcess | null
  role: string
  coordinator: number
}

export class ElectLabCluster {
  nodes: HostProcess[] = [1, 2, 3].map((id): HostProcess => ({ id, child: null, role: "booting", coordinator: -1 }))
  private broker: Broker | null = null
  /** The group key's folder and file (owner-only, removed at stop); null without a key. */
  private keyDir: string | null = null
  private keyFile: string | null = null
  /** The nodes' log lines, heartbeats included, on this process's timeline. */
  readonly trace = new TraceLog()
  readonly breakdowns: Record<Failure, Breakdown[]> = { kill: [], freeze: [] }

  constructor(
    private detector: DetectorName,
    private auth = true,
    /** Node's arguments before `node …`: the CLI through tsx, or a bundle of it (host-bundle.ts). */
    private nodeArgs = [join(ROOT, "bin", "electlab.js")],
  ) {}

  async start() {
    if (this.auth) {
      this.keyDir = holdSecretFolder(mkdtempSync(join(tmpdir(), "electlab-bench-key-")))
      this.keyFile = join(this.keyDir, "group.key")
      writeFileSync(this.keyFile, newKeyHex() + "\n", { mode: 0o600 })
    }
    this.broker = new Broker(await freePort())
    await this.broker.start()
    for (const n of this.nodes) this.spawn(n)
    await until("agreement on 3", () => (this.agreedOn(this.nodes) === 3 ? true : null), 20_000, 10)
  }

  private spawn(n: HostProcess) {
    const child = spawn(
      process.execPath,
      [
        ...this.nodeArgs, "node",
        "--broker", this.broker!.url,
        "--id", String(n.id), "--ids", "1,2,3",
        "--algorithm", algorithmName(Algorithm.ImprovedBully),
        "--heartbeat", String(HEARTBEAT_MS),
        "--fail-timeout", String(ELECTION_TIMEOUT_MS),
        "--answer-timeout", "100",
        "--coordinator-timeout", "200",
        "--failure-detector", this.detector,
        "--prefix", "electlab-bench",
        ...(this.keyFile ? ["--key-file", this.keyFile] : []),
      ],
      { stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, ELECTLAB_TRACE_HEARTBEATS: "1" } },
    )
    n.child = child
    n.role = "booting"
    n.coordinator = -1
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const e = parseLogLine(line, n.id, performance.now())
      if (e) this.trace.add(e)
      if (e?.event === "role") {
        n.role = e.fields.r
        n.coordinator = Number(e.fields.c)
      }
    })
  }

  /** The coordinator all given nodes agree on (and which itself says so), or null. */
  agreedOn(nodes: HostProcess[]): number | null {
    // the core's checker: the others count as down (killed or stopped)
    const verdict = checkCluster(
      this.nodes.map((n) => ({
        id: n.id,
        live: nodes.includes(n),
        role: parseRole(n.role) ?? Role.Electing,
        coordinator: n.coordinator,
        epoch: 0,
        rank: n.id,
      })),
    )
    return verdict.violations.length === 0 ? verdict.coordinator : null
  }

  async trial(failure: Failure): Promise<number> {
    const before = await until("agreement before the trial", () => this.agreedOn(this.nodes), 20_000, 10)
    const leader = this.nodes.find((n) => n.id === before)!
    const survivors = this.nodes.filter((n) => n !== leader)
    this.trace.setSteady(false)
    const t0 = performance.now()
    leader.child!.kill(failure === "kill" ? "SIGKILL" : "SIGSTOP")
    const after = await until(
      "a new coordinator",
      () => {
        const c = this.agreedOn(survivors)
        return c !== null && c !== before ? c : null
      },
      10_000,
      1,
    )
    const seenAt = performance.now()
    const ms = seenAt - t0
    if (failure === "kill") {
      await exited(leader.child!)
      this.spawn(leader)
    } else leader.child!.kill("SIGCONT")
    await until("all three back", () => (this.agreedOn(this.nodes) === 3 ? true : null), 20_000, 10)
    this.breakdowns[failure].push(this.trace.breakdown(leader.id, survivors.map((n) => n.id), after, t0, seenAt))
    // heartbeats sampled again once the restarted or resumed leader has settled
    await sleep(200)
    this.trace.setSteady(true)
    return ms
  }

  async stop() {
    for (const n of this.nodes) {
      n.child?.kill("SIGCONT")
      n.child?.kill("SIGKILL")
    }
    await this.broker?.dispose()
    if (this.keyDir) removeSecretFolder(this.keyDir)
  }
}

// ---------------------------------------------------------------- the run

/** The one-minute load average, sampled every second while a side runs. */
export interface LoadFigures {
  mean: number
  max: number
}

class LoadSampler {
  private samples: number[] = []
  private timer = setInterval(() => this.samples.push(loadavg()[0]), 1000)
  constructor() {
    this.samples.push(loadavg()[0])
  }
  stop(): LoadFigures {
    clearInterval(this.timer)
    const r = (x: number) => Math.round(x * 100) / 100
    return { mean: r(this.samples.reduce((a, b) => a + b, 0) / this.samples.length), max: r(Math.max(...this.samples)) }
  }
}

/** What the host nodes' logs tell of one ElectLab side. */
export interface ElectLabTrace {
  /** Gaps between heartbeats as the coordinator sent them and as the followers received them, outside the trials. */
  sentGaps: GapStats
  receivedGaps: GapStats
  /** Medians of each part of the failover. */
  summary: Record<Failure, BreakdownSummary>
  breakdowns: Record<Failure, Breakdown[]>
}

export interface FailoverReport {
  /** The host nodes authenticated their frames (a key made for the run): a last will is checked by a challenge. */
  auth: boolean
  /** The host nodes ran from a bundle of the CLI (host-bundle.ts); else through tsx. */
  bundled: boolean
  heartbeatMs: number
  electionTimeoutMs: number
  trials: number
  etcd: Record<Failure, Stats> & { splitVotes: number }
  /** ElectLab with the fixed failure detector, and with the adaptive one. */
  electlab: Record<Failure, Stats>
  adaptive: Record<Failure, Stats>
  /** Before the trials each ElectLab cluster ran this long: the adaptive detector learns the heartbeats meanwhile. */
  warmupMs: number
  ratios: Record<Failure, { median: number; p90: number }>
  adaptiveRatios: Record<Failure, { median: number; p90: number }>
  load: { etcd: LoadFigures; electlab: LoadFigures; adaptive: LoadFigures }
  traces: { electlab: ElectLabTrace; adaptive: ElectLabTrace }
}

async function measure(cluster: { trial(f: Failure): Promise<number> }, failure: Failure, trials: number, label: string) {
  const samples: number[] = []
  const rng = new Rng(trials * 7 + (failure === "kill" ? 1 : 2))
  for (let i = 0; i < trials; i++) {
    // Fail at a random phase of the heartbeat: a trial that starts as the cluster settles
    // would otherwise fail just after a heartbeat, every time (same draws for both sides).
    await sleep(100 + rng.next() * HEARTBEAT_MS * 2)
    samples.push(await cluster.trial(failure))
    process.stderr.write(`${label} ${failure} ${i + 1}/${trials}: ${samples.at(-1)!.toFixed(1)} ms\n`)
  }
  return stats(samples)
}

export async function measureElectLab(cluster: ElectLabCluster, trials: number, warmupMs: number, label: string) {
  const load = new LoadSampler()
  await cluster.start()
  await sleep(warmupMs)
  const kill = await measure(cluster, "kill", trials, label)
  const freeze = await measure(cluster, "freeze", trials, label)
  await cluster.stop()
  const trace: ElectLabTrace = {
    sentGaps: gapStats(cluster.trace.sentGaps, HEARTBEAT_MS),
    receivedGaps: gapStats(cluster.trace.receivedGaps, HEARTBEAT_MS),
    summary: { kill: summarise(cluster.breakdowns.kill), freeze: summarise(cluster.breakdowns.freeze) },
    breakdowns: cluster.breakdowns,
  }
  return { kill, freeze, trace, load: load.stop() }
}

export async function runFailoverBench(trials: number, warmupMs = 30_000, auth = true, bundled = true): Promise<FailoverReport> {
  const bundle = bundled ? await bundleHostNode() : null
  const etcd = new EtcdCluster()
  const ours = new ElectLabCluster("fixed", auth, bundle?.nodeArgs)
  const adaptive = new ElectLabCluster("adaptive", auth, bundle?.nodeArgs)
  try {
    const etcdLoad = new LoadSampler()
    await etcd.start()
    const etcdKill = await measure(etcd, "kill", trials, "etcd")
    const etcdFreeze = await measure(etcd, "freeze", trials, "etcd")
    await etcd.stop()
    const etcdLoadFigures = etcdLoad.stop()
    const fixedSide = await measureElectLab(ours, trials, warmupMs, "electlab")
    // 30 s at 50 ms: 600 clean heartbeats, enough for the estimate to allow a single miss
    const adaptiveSide = await measureElectLab(adaptive, trials, warmupMs, "adaptive")
    const ratio = (a: Stats, b: Stats) => ({
      median: Math.round((a.medianMs / b.medianMs) * 1000) / 1000,
      p90: Math.round((a.p90Ms / b.p90Ms) * 1000) / 1000,
    })
    return {
      auth,
      bundled,
      heartbeatMs: HEARTBEAT_MS,
      electionTimeoutMs: ELECTION_TIMEOUT_MS,
      trials,
      etcd: { kill: etcdKill, freeze: etcdFreeze, splitVotes: etcd.splitVotes },
      electlab: { kill: fixedSide.kill, freeze: fixedSide.freeze },
      adaptive: { kill: adaptiveSide.kill, freeze: adaptiveSide.freeze },
      warmupMs,
      ratios: { kill: ratio(fixedSide.kill, etcdKill), freeze: ratio(fixedSide.freeze, etcdFreeze) },
      adaptiveRatios: { kill: ratio(adaptiveSide.kill, etcdKill), freeze: ratio(adaptiveSide.freeze, etcdFreeze) },
      load: { etcd: etcdLoadFigures, electlab: fixedSide.load, adaptive: adaptiveSide.load },
      traces: { electlab: fixedSide.trace, adaptive: adaptiveSide.trace },
    }
  } finally {
    await etcd.stop()
    await ours.stop()
    await adaptive.stop()
    bundle?.remove()
  }
}

export function formatFailoverReport(r: FailoverReport): string {
  const row = (side: string, failure: Failure, s: Stats) =>
    `${side.padEnd(9)} ${failure.padEnd(7)} ${String(s.minMs).padStart(8)} ${String(s.medianMs).padStart(8)} ${String(s.p90Ms).padStart(8)}`
  const v = (x: number | null) => (x === null ? "-" : String(x))
  const parts = (side: string, failure: Failure, b: BreakdownSummary) =>
    `${side.padEnd(9)} ${failure.padEnd(7)} ${v(b.phase).padStart(6)} ${v(b.silence).padStart(8)} ${v(b.delay).padStart(6)} ` +
    `${v(b.timerLate).padStart(6)} ${v(b.wait).padStart(5)} ${v(b.check).padStart(6)} ${v(b.election).padStart(9)} ${v(b.reportLag).padStart(7)}`
  const gaps = (side: string, t: ElectLabTrace) =>
    `${side.padEnd(9)} heartbeat gaps sent: median ${t.sentGaps.median}, p99 ${t.sentGaps.p99}, max ${t.sentGaps.max} ms; ` +
    `received: median ${t.receivedGaps.median}, p99 ${t.receivedGaps.p99}, max ${t.receivedGaps.max} ms ` +
    `(${t.receivedGaps.overOneAndThreeQuarters} of ${t.receivedGaps.count} at 1.75 periods or more)`
  const load = (side: string, l: LoadFigures) => `${side} ${l.mean} (max ${l.max})`
  return [
    `failover: heartbeat ${r.heartbeatMs} ms, election/failure timeout ${r.electionTimeoutMs} ms, ${r.trials} trials each; ` +
      (r.auth ? "ElectLab's frames authenticated (a key made for the run: a last will is checked by a challenge)" : "ElectLab without a key (a last will is taken at once)") +
      (r.bundled ? "; host nodes bundled by esbuild, 1 MB semi-spaces" : "; host nodes through tsx"),
    `side      failure      min   median      p90   (ms, failure to a new leader every survivor reports)`,
    row("etcd", "kill", r.etcd.kill),
    row("etcd", "freeze", r.etcd.freeze),
    row("electlab", "kill", r.electlab.kill),
    row("electlab", "freeze", r.electlab.freeze),
    row("adaptive", "kill", r.adaptive.kill),
    row("adaptive", "freeze", r.adaptive.freeze),
    `etcd trials with more than one election round (split votes): ${r.etcd.splitVotes} of ${2 * r.trials}`,
    `ratios electlab/etcd: kill median ${r.ratios.kill.median}, p90 ${r.ratios.kill.p90}; freeze median ${r.ratios.freeze.median}, p90 ${r.ratios.freeze.p90}`,
    `ratios adaptive/etcd: kill median ${r.adaptiveRatios.kill.median}, p90 ${r.adaptiveRatios.kill.p90}; freeze median ${r.adaptiveRatios.freeze.median}, p90 ${r.adaptiveRatios.freeze.p90}`,
    `(electlab: the fixed failure timeout; adaptive: the adaptive detector, after ${r.warmupMs / 1000} s of heartbeats)`,
    `load average (1 min) during each side, mean (max): ${load("etcd", r.load.etcd)}; ${load("electlab", r.load.electlab)}; ${load("adaptive", r.load.adaptive)}`,
    `where ElectLab's time went (medians over the trials, ms; from the nodes' logs):`,
    `side      failure  phase  silence      D  late  wait  check  election  report`,
    parts("electlab", "kill", r.traces.electlab.summary.kill),
    parts("electlab", "freeze", r.traces.electlab.summary.freeze),
    parts("adaptive", "kill", r.traces.adaptive.summary.kill),
    parts("adaptive", "freeze", r.traces.adaptive.summary.freeze),
    `  phase: failure after the leader's last heartbeat; silence: last heartbeat received to the first suspicion`,
    `  (kill: acting on the broker's last will); D: the suspicion delay then; late: silence beyond D; with a key,`,
    `  wait: how long the check (of the last will, or the early probe of a late heartbeat) waits for a proof, check: its start to its verdict;`,
    `  election: first suspicion to the last survivor's report; report: that report to the benchmark reading it`,
    gaps("electlab", r.traces.electlab),
    gaps("adaptive", r.traces.adaptive),
  ].join("\n")
}
