/**
 * How long the page waits for the browser in the two passkey steps that run
 * on their own. An object, not constants, so that a test can shorten them.
 */
export const passkeyTimings = {
  /**
   * The bound on the automatic upgrade (`mediation: 'conditional'` create)
   * after a password sign-in. A password manager answers at once or not at
   * all; Chromium's virtual authenticator never settles, and a request left
   * pending blocks every later ceremony.
   */
  upgradeBoundMs: 3000,
  /** How long a failed passkey creation is reported before the page goes on to the redirect target. */
  failurePauseMs: 2000
}

/** The localStorage key that holds until when (epoch ms) "Not now" keeps the passkey offer away. */
export const PASSKEY_OFFER_DECLINED_KEY = 'threshold.passkeyOfferDeclinedUntil'

/** "Not now" holds this long on this browser, so that the offer does not nag at every sign-in. */
export const PASSKEY_OFFER_DECLINED_DAYS = 30
