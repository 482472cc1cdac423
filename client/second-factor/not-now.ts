/** The localStorage key that holds until when (epoch ms) "Not now" keeps the second-factor offer away. */
export const SECOND_FACTOR_OFFER_DECLINED_KEY = 'threshold.secondFactorOfferDeclinedUntil'

/** "Not now" holds this long on this browser, as the passkey offer's does. */
const SECOND_FACTOR_OFFER_DECLINED_DAYS = 30

const DAY_MS = 24 * 60 * 60 * 1000

/** Remembers "Not now"; storage that refuses (private mode, blocked) just forgets. */
export function rememberSecondFactorNotNow (now = Date.now()): void {
  try {
    localStorage.setItem(SECOND_FACTOR_OFFER_DECLINED_KEY, String(now + SECOND_FACTOR_OFFER_DECLINED_DAYS * DAY_MS))
  } catch {
    // Nothing to remember it in: the offer comes back next time.
  }
}

/** Whether a "Not now" given on this browser still holds. */
export function secondFactorNotNowRemembered (now = Date.now()): boolean {
  try {
    return Number(localStorage.getItem(SECOND_FACTOR_OFFER_DECLINED_KEY)) > now
  } catch {
    return false
  }
}
