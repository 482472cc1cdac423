import type { MessageKey } from './message-catalogue.js'

/**
 * The error catalogue of spec section 8: the keys of the `error` parameter,
 * each with its text's key in the message catalogues (`error.<KEY>`). The
 * page shows them, and the edge answers with the two domain-check texts
 * itself when DOMAIN_CHECK_ENFORCED is on, so they live where both sides
 * read them. Written out rather than composed, so that a test can find
 * every key the code uses.
 */
export const ERROR_MESSAGE_KEYS = Object.freeze({
  INACTIVITY_LOGOUT: 'error.INACTIVITY_LOGOUT',
  DOMAIN_NOT_AUTHORIZED: 'error.DOMAIN_NOT_AUTHORIZED',
  GENERIC: 'error.GENERIC',
  GOOGLE_LOGIN_FAILED: 'error.GOOGLE_LOGIN_FAILED',
  GOOGLE_REGISTER_FAILED: 'error.GOOGLE_REGISTER_FAILED',
  LOCAL_ACCOUNTS_NOT_SUPPORTED: 'error.LOCAL_ACCOUNTS_NOT_SUPPORTED',
  DOMAIN_AUTH_CHECK_FAILED: 'error.DOMAIN_AUTH_CHECK_FAILED'
} as const satisfies Record<string, MessageKey>)

export type ErrorKey = keyof typeof ERROR_MESSAGE_KEYS

/** Whether a value of the `error` parameter is one of the catalogue's keys. */
export function isErrorKey (value: string): value is ErrorKey {
  return Object.hasOwn(ERROR_MESSAGE_KEYS, value)
}

/**
 * The English texts, as the tests read the edge's answers against them (the
 * edge and the page take theirs from the catalogues, in the visitor's
 * language). Marked pure so that a bundle that does not use it drops it.
 */
export const ERROR_MESSAGES: Readonly<Record<ErrorKey, string>> = /* @__PURE__ */ Object.freeze({
  INACTIVITY_LOGOUT: 'You have been logged out due to inactivity.',
  DOMAIN_NOT_AUTHORIZED: 'The requested domain is not authorized to access this instance of the product.',
  GENERIC: 'There was a problem. Please try again.',
  GOOGLE_LOGIN_FAILED: 'Google login failed.',
  GOOGLE_REGISTER_FAILED: 'Google register failed.',
  LOCAL_ACCOUNTS_NOT_SUPPORTED: 'Not supported for local network authentication flow. Please contact your customer admin.',
  DOMAIN_AUTH_CHECK_FAILED: 'Something went wrong checking the domain authorization.'
})
