// Which firing of a timer is still wanted: the engine keeps one generation per timer slot
// (the firmware's driver keeps the same counts in a plain array, cheaper on a board).
// Setting a timer again or cancelling it moves the generation on, so a firing scheduled
// before is recognised as stale and dropped.
//
// Portable (DeviceScript subset): one plain array.

export class TimerGenerations {
    private generations: number[] = []

    constructor(slots: number) {
        for (let i = 0; i < slots; i++) this.generations.push(0)
    }

    /** A timer is set in `slot`: the generation its firing must show (any earlier firing goes stale). */
    arm(slot: number): number {
        this.generations[slot]++
        return this.generations[slot]
    }

    /** The timer in `slot` is cancelled, or has fired: no firing scheduled so far counts. */
    cancel(slot: number) {
        this.generations[slot]++
    }

    /** True when a firing of `slot` scheduled with `generation` is still the wanted one. */
    isCurrent(slot: number, generation: number): boolean {
        return this.generations[slot] === generation
    }
}
