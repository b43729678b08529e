// Arithmetic that gives the same answer in Node and in the DeviceScript VM.

/** names[i] for first <= i < names.length, else prefix + i (a number no table names). */
export function nameIn(names: string[], i: number, first: number, prefix: string): string {
    return i >= first && i < names.length ? names[i] : prefix + i
}

/** The sum of a list of counts. */
export function sum(list: number[]): number {
    let total = 0
    for (let i = 0; i < list.length; i++) total += list[i]
    return total
}

/**
 * a mod b for non-negative integers of any size up to 2^53. The VM's `%` is wrong
 * once an operand leaves the int32 range (62000000000 % 1000 gives 856 there).
 */
export function mod(a: number, b: number): number {
    return a - Math.floor(a / b) * b
}

/** Largest element of a non-empty list (the VM's Math.max looks at two arguments only). */
export function maxOf(list: number[]): number {
    let best = list[0]
    for (let i = 1; i < list.length; i++) if (list[i] > best) best = list[i]
    return best
}

/** Epochs live in a u32 field and wrap: compared as serial numbers (RFC 1982). */
export const EPOCH_MODULUS = 4294967296

/** The epoch after `e`, wrapping past 2^32 - 1 to 0 (never leaves the frame's field). */
export function nextEpoch(e: number): number {
    return e >= EPOCH_MODULUS - 1 ? 0 : e + 1
}

/** True when epoch `a` is newer than `b`: ahead by less than half the number space. */
export function epochAfter(a: number, b: number): boolean {
    const d = mod(a - b, EPOCH_MODULUS)
    return d > 0 && d < EPOCH_MODULUS / 2
}

/** The newer of two epochs. */
export function newerEpoch(a: number, b: number): number {
    return epochAfter(a, b) ? a : b
}

/**
 * Park–Miller "minimal standard" generator: exact in doubles (products stay under
 * 2^53), so a seed gives the same draws in Node and in the DeviceScript VM. The
 * driver passes the seed in: the core draws nothing of its own.
 */
export class Jitter {
    private state: number
    constructor(seed: number) {
        const s = mod(Math.floor(Math.abs(seed)), 2147483647)
        this.state = s === 0 ? 1 : s
        // The first draws from a small seed (a process id) are tiny: stir them away.
        for (let i = 0; i < 4; i++) this.below(1)
    }
    /** A whole number in [0, bound). */
    below(bound: number): number {
        this.state = mod(this.state * 48271, 2147483647)
        return bound <= 0 ? 0 : Math.floor(((this.state - 1) / 2147483646) * bound)
    }
}
