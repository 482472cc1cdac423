import { ERROR_MESSAGES, type ErrorKey } from '../../common/error-messages.js'
import type { PageNotice } from '../../common/page-notices.js'
import { MAX_QUERY_ERROR_LENGTH } from './constants.js'

/** The spec's error catalogue, kept in common/ since the edge answers with two of its texts too. */
export { ERROR_MESSAGES, type ErrorKey }

/** What the page says after a registration-type call, or a request for a new link, whose answer carries no success text of its own. */
export const SUCCESS_MESSAGES = Object.freeze({
  REGISTERED: 'Your account has been created. You can now log in.',
  RESET_REQUESTED: 'If an account exists for this email, we have sent it a link to reset the password.',
  PASSWORD_SET: 'Your password has been changed. You can now log in with it.',
  VERIFICATION_LINK_SENT: 'We have sent you a new verification link.'
})

/**
 * The codes of the `notice` parameter, which the accounts service adds when it
 * sends the browser back from an emailed link, and what each says. Where each
 * is shown, and as what, is in page-params.ts; any other code is ignored.
 */
export const NOTICE_MESSAGES: Readonly<Record<PageNotice, string>> = Object.freeze({
  'email-verified': 'Your email address is verified. You can now log in.',
  'verify-link-invalid': 'This verification link is invalid, used or expired. Log in to ask for a new one.',
  'sessions-ended': 'We have signed you out everywhere. Choose a new password to keep your account safe.',
  'end-sessions-link-invalid': 'This link is invalid, used or expired. If you think someone else used your account, reset your password here.'
})

/**
 * What the page says when the accounts service answers 503 (too busy, or
 * down for a moment: try again after Retry-After) without a text of its own.
 */
export const BUSY_MESSAGE = 'Many people are signing in right now. Please try again in a few seconds.'

/** Labels of the buttons the page adds beside the spec's. */
export const BUTTON_LABELS = Object.freeze({
  SEND_VERIFICATION_LINK: 'Send a new verification link',
  SIGN_IN_WITH_PASSKEY: 'Sign in with a passkey'
})

/** The passkey offer after a password sign-in (client/views/PasskeyOffer.tsx). */
export const PASSKEY_OFFER_MESSAGES = Object.freeze({
  HEADING: 'Create a passkey',
  EXPLANATION: 'Next time, sign in with your fingerprint, face or screen lock instead of your password.',
  CREATE: 'Create a passkey',
  NOT_NOW: 'Not now',
  FAILED: 'The passkey could not be created. Continuing without it…'
})

/** Control characters, and the invisible characters that reorder or hide text. */
// eslint-disable-next-line no-control-regex
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

/** The message for the `error` parameter: a catalogue entry, or the value itself as plain text. */
export function messageForErrorParameter (value: string): string {
  return Object.hasOwn(ERROR_MESSAGES, value) ? ERROR_MESSAGES[value as ErrorKey] : plainText(value)
}
