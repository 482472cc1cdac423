import { PASSKEY_OFFER_DECLINED_DAYS, PASSKEY_OFFER_DECLINED_KEY } from './passkey-timing.js'

const DAY_MS = 24 * 60 * 60 * 1000

/** Remembers "Not now" on this browser for 30 days; storage that refuses (private mode, blocked) just forgets. */
export function rememberNotNow (now = Date.now()): void {
  try {
    localStorage.setItem(PASSKEY_OFFER_DECLINED_KEY, String(now + PASSKEY_OFFER_DECLINED_DAYS * DAY_MS))
  } catch {
    // Nothing to remember it in: the offer comes back next time.
  }
}

/** Whether a "Not now" given on this browser still holds. */
export function notNowRemembered (now = Date.now()): boolean {
  try {
    return Number(localStorage.getItem(PASSKEY_OFFER_DECLINED_KEY)) > now
  } catch {
    return false
  }
}
