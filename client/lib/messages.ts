import { ERROR_MESSAGES, type ErrorKey } from '../../common/error-messages.js'
import type { PageNotice } from '../../common/page-notices.js'
import { BUSY_MESSAGE, plainText, SUCCESS_MESSAGES } from '../../common/page-texts.js'

/** The spec's error catalogue, kept in common/ since the edge answers with two of its texts too. */
export { ERROR_MESSAGES, type ErrorKey }
/** Kept in common/ since the edge shows them too, when it answers a form posted without scripts. */
export { BUSY_MESSAGE, plainText, SUCCESS_MESSAGES }

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

/** The message for the `error` parameter: a catalogue entry, or the value itself as plain text. */
export function messageForErrorParameter (value: string): string {
  return Object.hasOwn(ERROR_MESSAGES, value) ? ERROR_MESSAGES[value as ErrorKey] : plainText(value)
}
