// Headless Chromium from Debian's package, driven by playwright-core (no browser download):
// the web lab's browser tests and its screenshots.

import { chromium, type Browser } from "playwright-core"

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium"

export async function launchChromium(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    // playwright gives every launch a new empty --user-data-dir of its own (and refuses one passed in args)
  })
  return {
    browser,
    close: async () => {
      await browser.close()
    },
  }
}
