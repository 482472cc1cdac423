/**
 * How a typed second-factor code is read: by the code step (client/second-factor/)
 * and by the edge when the code step is posted without scripts.
 */

/** A code as typed or pasted ("123 456", "123456 "): its spaces removed, so that a grouped paste still works. */
export const withoutSpaces = (value: string): string => value.replace(/\s+/g, '')

/** Six digits, as the authenticator shows them (docs/second-factor.md). */
export const isAuthenticatorCode = (value: string): boolean => /^[0-9]{6}$/.test(value)
