/**
 * The error catalogue of spec section 8: keys of the `error` parameter and
 * their messages. The page shows them, and the edge answers with the two
 * domain-check texts itself when DOMAIN_CHECK_ENFORCED is on, so they live
 * where both sides read them.
 */
export const ERROR_MESSAGES = Object.freeze({
  INACTIVITY_LOGOUT: 'You have been logged out due to inactivity.',
  DOMAIN_NOT_AUTHORIZED: 'The requested domain is not authorized to access this instance of the product.',
  GENERIC: 'There was a problem. Please try again.',
  GOOGLE_LOGIN_FAILED: 'Google login failed.',
  GOOGLE_REGISTER_FAILED: 'Google register failed.',
  LOCAL_ACCOUNTS_NOT_SUPPORTED: 'Not supported for local network authentication flow. Please contact your customer admin.',
  DOMAIN_AUTH_CHECK_FAILED: 'Something went wrong checking the domain authorization.'
})

export type ErrorKey = keyof typeof ERROR_MESSAGES
