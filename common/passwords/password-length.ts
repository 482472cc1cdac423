/**
 * PASSWORD_MIN_LENGTH's bounds, which the reference service enforces and the
 * page says in its hint (field.passwordHint's `{min}`): kept once here, since
 * both sides need them.
 */

/** PASSWORD_MIN_LENGTH's default: NIST SP 800-63B-4's floor where a second factor may follow. */
export const DEFAULT_PASSWORD_MIN_LENGTH = 8

/**
 * What PASSWORD_MIN_LENGTH accepts: never below NIST's 8; at most 64, which
 * NIST asks every service to allow as a maximum (a higher minimum would
 * refuse passphrases that a service must take).
 */
export const PASSWORD_MIN_LENGTH_RANGE = Object.freeze({ min: 8, max: 64 })

/** Whether a value is a minimum PASSWORD_MIN_LENGTH allows. */
export function isPasswordMinLength (value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= PASSWORD_MIN_LENGTH_RANGE.min && (value as number) <= PASSWORD_MIN_LENGTH_RANGE.max
}
