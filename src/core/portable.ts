// Arithmetic that gives the same answer in Node and in the DeviceScript VM.

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
