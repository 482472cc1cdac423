import type { MessageKey } from './message-catalogue.js'

/**
 * Texts the page shows that the edge shows too, when it answers a form
 * posted without scripts (server/edge/no-script/): the successes, the busy
 * service's text, and the one way outside text is made fit to show. Each
 * text's key in the message catalogues is here; the page takes the texts
 * from its embedded catalogue (client/languages/messages.ts).
 */

/** Longest error text taken from the address bar; longer ones are cut. */
const MAX_QUERY_ERROR_LENGTH = 300

/** What the page says after a registration-type call, or a request for a new link, whose answer carries no success text of its own. */
export const SUCCESS_MESSAGE_KEYS = Object.freeze({
  REGISTERED: 'success.registered',
  RESET_REQUESTED: 'success.resetRequested',
  PASSWORD_SET: 'success.passwordSet',
  VERIFICATION_LINK_SENT: 'success.verificationLinkSent'
} as const satisfies Record<string, MessageKey>)

/**
 * What the page says when the accounts service answers 503 (too busy, or
 * down for a moment: try again after Retry-After) without a text of its own.
 */
export const BUSY_MESSAGE_KEY = 'failure.busy' satisfies MessageKey

/**
 * The English texts, as the tests read answers against them (the edge and
 * the page take theirs from the catalogues, in the visitor's language).
 * Marked pure so that a bundle that does not use them drops them.
 */
export const SUCCESS_MESSAGES: Readonly<Record<keyof typeof SUCCESS_MESSAGE_KEYS, string>> = /* @__PURE__ */ Object.freeze({
  REGISTERED: 'Your account has been created. You can now log in.',
  RESET_REQUESTED: 'If an account exists for this email, we have sent it a link to reset the password.',
  PASSWORD_SET: 'Your password has been changed. You can now log in with it.',
  VERIFICATION_LINK_SENT: 'We have sent you a new verification link.'
})

/** English's busy text (BUSY_MESSAGE_KEY), for the edge until it speaks the visitor's language. */
export const BUSY_MESSAGE = 'Many people are signing in right now. Please try again in a few seconds.'

/** Control characters, and the invisible characters that reorder or hide text. */
// eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g

/**
 * Text from outside (the address bar, a server) made fit to show: no control
 * or bidirectional characters, collapsed spaces, bounded length. It is shown
 * as text, never as markup.
 */
export function plainText (raw: string, maxLength = MAX_QUERY_ERROR_LENGTH): string {
  const cleaned = raw.replace(UNSAFE_CHARACTERS, ' ').replace(/\s+/g, ' ').trim()
  return cleaned.length > maxLength ? `${cleaned.slice(0, maxLength - 1)}…` : cleaned
}
