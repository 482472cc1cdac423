/**
 * The emailed sign-in code (docs/email-codes.md): what the reference service
 * sends, what the page's code step accepts, and what the edge's form reads,
 * alike in every program.
 */

/**
 * The characters a code is drawn from: capital letters and digits without the
 * ones read for each other (0 and O, 1, I and L), so that a code read aloud or
 * typed from a phone's screen goes in right the first time.
 */
export const EMAIL_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789'

/** Characters in a code: 31^8 ≈ 8.5 × 10^11, against at most a handful of guesses per code. */
export const EMAIL_CODE_LENGTH = 8

/** How long a code works after it is sent. */
export const EMAIL_CODE_LIFETIME_SECONDS = 10 * 60

/** The `login_method` value that allows the emailed code (beside GOOGLE, SAML, CUSTOM_SSO and the product's name). */
export const EMAIL_CODE_LOGIN_METHOD = 'EMAIL_CODE'

/**
 * A code as typed or pasted, made comparable: capitals, without the spaces and
 * dashes a visitor may copy with it (the email shows it as `ABCD-EFGH`).
 * Null when what is left is not a code of the alphabet, so a wrong-looking
 * input is refused before any attempt is counted.
 */
export function normalizeEmailCode (typed: string): string | null {
  const code = typed.replace(/[\s-]/g, '').toUpperCase()
  if (code.length !== EMAIL_CODE_LENGTH) return null
  for (const character of code) {
    if (!EMAIL_CODE_ALPHABET.includes(character)) return null
  }
  return code
}

/** A code as the email shows it: two groups of four, easier to read and to copy. */
export function displayEmailCode (code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`
}
