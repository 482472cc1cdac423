import { DEFAULT_PASSWORD_MIN_LENGTH, PASSWORD_MIN_LENGTH_RANGE } from '../../../common/passwords/password-length.js'
import { readInteger, type Env } from '../env-parsing.js'

/**
 * PASSWORD_MIN_LENGTH (docs/breached-passwords.md), read alike by the
 * reference service, which enforces it, and the edge, which tells the page
 * for its hint: the embedded service shares the edge's environment, and an
 * operator with an own backend sets it to what that backend enforces.
 * A whole number from 8 to 64; 8 when unset; anything else stops the start.
 */
export function readPasswordMinLength (env: Env): number {
  return readInteger(env, 'PASSWORD_MIN_LENGTH', { ...PASSWORD_MIN_LENGTH_RANGE, fallback: DEFAULT_PASSWORD_MIN_LENGTH })
}
