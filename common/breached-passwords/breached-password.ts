/**
 * A password login's answer flag, `password_breached: true` (next to the
 * tokens; on a second-factor step it is carried on to the answer with the
 * tokens): the password was found in a breach corpus (docs/breached-passwords.md).
 * The login succeeded; the page tells the visitor to change the password.
 */
export const PASSWORD_BREACHED_FIELD = 'password_breached'
