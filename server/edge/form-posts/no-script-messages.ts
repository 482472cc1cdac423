import { NO_SCRIPT_TEXTS } from '../../../common/no-script-texts.js'

/**
 * What the edge says when a form posted without scripts asks for something
 * only the page's scripts can do, or cannot be read (docs/no-script.md).
 * Kept out of common/: the page's first load would carry them for nothing.
 * The local-network note is the page's own (common/no-script-texts.ts, which
 * only the server renderer imports), so page and edge say it alike.
 */
export const NO_SCRIPT_MESSAGES = Object.freeze({
  LOCAL_NETWORK: NO_SCRIPT_TEXTS.LOCAL_NETWORK,
  SECOND_FACTOR_ENROLMENT: 'Your account needs a second factor set up before you can sign in, and that needs JavaScript. Please turn it on and log in again.',
  FORM_UNREADABLE: 'The form could not be read. Please try again.',
  FORM_TOO_LARGE: 'The form is too large to send. Please shorten what you typed and try again.',
  FORM_TYPE: 'The form must be sent as application/x-www-form-urlencoded.',
  NO_HOST: 'The form was sent without the site\'s address (no Host header). Please try again.'
})
