// The LED scheme: one colour and one blink pattern per role, so a glance at a board
// tells its role, also on a one-colour LED. A pattern is 8 slots of 125 ms (1 s).

import { Role } from "../core/contract"

export const LED_SLOT_MS = 125

export interface LedLook {
    /** 0xRRGGBB; on a one-colour LED any non-zero colour is "on". */
    color: number
    /** "1" on, "0" off, one character per slot. */
    pattern: string
}

export function ledLook(role: Role): LedLook {
    if (role === Role.Coordinator) return { color: 0x00ff00, pattern: "11111111" } // green, steady
    if (role === Role.Follower) return { color: 0x0000ff, pattern: "10000000" } // blue, a blip a second
    if (role === Role.Electing) return { color: 0xffff00, pattern: "10101010" } // yellow, 4 Hz
    if (role === Role.Crashed) return { color: 0xff0000, pattern: "11110000" } // red, 1 Hz
    return { color: 0xff00ff, pattern: "11011000" } // magenta, double blink: misconfigured
}

/** Colour to show at a slot (0 = off). */
export function ledColorAt(role: Role, slot: number): number {
    const look = ledLook(role)
    const s = slot - Math.floor(slot / 8) * 8
    return look.pattern.charAt(s) === "1" ? look.color : 0
}
