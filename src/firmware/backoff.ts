// Reconnecting to the MQTT broker (boards and host nodes): wait, doubling after each failure
// up to a ceiling, back to the first wait once connected.

export const FIRST_BACKOFF_MS = 250
export const MAX_BACKOFF_MS = 8000

export class Backoff {
    /** The next wait, ms. */
    next: number

    constructor(private first: number = FIRST_BACKOFF_MS) {
        this.next = first
    }

    /** A failure: the wait before the next try; the one after is twice as long. */
    failed(): number {
        const wait = this.next
        this.next = Math.min(this.next * 2, MAX_BACKOFF_MS)
        return wait
    }

    reset() {
        this.next = this.first
    }
}
