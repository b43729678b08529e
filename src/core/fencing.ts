// Fencing tokens: every coordinatorship has a token, unique and ordered across the cluster,
// and a receiver accepts an order only if its token is at least the highest it has accepted.
// Pure and portable (Node and the DeviceScript VM); used by the application API, and open to
// checkers that judge runs.
//
// A token is (epoch, holder): the epoch in which the holder took the coordinator role, and the
// holder's process number. Tokens compare epoch first, by serial-number arithmetic (epochs
// wrap in their u32 field), then holder. Two coordinatorships never share a token: different
// holders differ in the second part, and one holder issues strictly increasing tokens
// (TokenIssuer). See docs/api.md for what the order guarantees and what it cannot.

import { epochAfter, nextEpoch } from "./portable"

/** One coordinatorship's token. */
export interface FenceToken {
    /** The epoch in which `holder` took the role (u32, wraps). */
    epoch: number
    /** The coordinator's process number. */
    holder: number
}

/** A token object (a copy: tokens are values). */
export function makeToken(epoch: number, holder: number): FenceToken {
    return { epoch: epoch, holder: holder }
}

/** Negative, 0 or positive as `a` is older than, the same as, or newer than `b`. */
export function compareTokens(a: FenceToken, b: FenceToken): number {
    if (a.epoch !== b.epoch) return epochAfter(a.epoch, b.epoch) ? 1 : -1
    return a.holder - b.holder
}

/** True when both name the same coordinatorship. */
export function sameToken(a: FenceToken, b: FenceToken): boolean {
    return a.epoch === b.epoch && a.holder === b.holder
}

/** "epoch.holder", as logs and summaries print a token. */
export function formatToken(t: FenceToken): string {
    return t ? t.epoch + "." + t.holder : "-"
}

/**
 * The receiver's side: accepts a token at least the highest accepted so far and counts
 * what it refuses. The first token is always accepted.
 */
export class FenceGate {
    /** The highest token accepted, or null before the first. */
    highest: FenceToken = null
    accepted = 0
    refused = 0

    /** True (and remembered) when `token` is at least the highest accepted; false (counted) otherwise. */
    offer(token: FenceToken): boolean {
        if (this.highest) {
            if (compareTokens(token, this.highest) < 0) {
                this.refused = this.refused + 1
                return false
            }
        }
        this.accepted = this.accepted + 1
        this.note(token)
        return true
    }

    /** Raises the highest to `token` if it is newer, counting nothing (a coordinator's own token). */
    note(token: FenceToken) {
        if (this.highest) {
            if (compareTokens(token, this.highest) <= 0) return
        }
        this.highest = makeToken(token.epoch, token.holder)
    }

    /** Would `offer` accept it? Counts nothing. */
    admits(token: FenceToken): boolean {
        return !this.highest || compareTokens(token, this.highest) >= 0
    }
}

/**
 * The coordinator's side: the token of each new coordinatorship of process `id`. It is the
 * epoch the election gave it, raised when needed so that it is above every token this
 * process issued or accepted before (an epoch may be reused: a process that lost the role and
 * took it back in the same epoch, or a board that booted into epoch 0 or 1 while the cluster
 * had moved on and nobody answered its claim).
 */
export class TokenIssuer {
    /** The last token issued, or null. */
    last: FenceToken = null

    constructor(readonly id: number) {}

    /** A token for a coordinatorship taken in `epoch`, above `last` and above `seen` (may be null). */
    issue(epoch: number, seen: FenceToken): FenceToken {
        let t = makeToken(epoch, this.id)
        if (this.last) {
            if (compareTokens(t, this.last) <= 0) t = makeToken(nextEpoch(this.last.epoch), this.id)
        }
        if (seen) {
            if (compareTokens(t, seen) <= 0) t = makeToken(nextEpoch(seen.epoch), this.id)
        }
        this.last = t
        return t
    }
}
