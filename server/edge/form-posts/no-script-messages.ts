/**
 * What the edge says when a form posted without scripts asks for something
 * only the page's scripts can do, or cannot be read (docs/no-script.md).
 * Kept out of common/: the page's first load would carry them for nothing.
 * The page's own note in place of local-network login says the same
 * (client/views/no-script-content.tsx).
 */
export const NO_SCRIPT_MESSAGES = Object.freeze({
  LOCAL_NETWORK: 'Signing in on the local network needs JavaScript. Please turn it on and reload the page.',
  SECOND_FACTOR_ENROLMENT: 'Your account needs a second factor set up before you can sign in, and that needs JavaScript. Please turn it on and log in again.',
  FORM_UNREADABLE: 'The form could not be read. Please try again.',
  FORM_TOO_LARGE: 'The form is too large to send. Please shorten what you typed and try again.',
  FORM_TYPE: 'The form must be sent as application/x-www-form-urlencoded.',
  NO_HOST: 'The form was sent without the site\'s address (no Host header). Please try again.'
})
