import { readBoolean, type Env } from '../env-parsing.js'

/** EMAIL_CODES (docs/email-codes.md), read alike by the edge and the reference service. */
export interface EmailCodeSettings {
  /** Whether the accounts service answers the email-code calls, and the page offers "Email me a sign-in code". */
  readonly enabled: boolean
}

/**
 * Reads EMAIL_CODES. `answeredByDefault`: whether the accounts service answers
 * the calls unless told otherwise (the embedded reference service does; an own
 * backend must say so with EMAIL_CODES=true, once `npm run conformance` passes
 * its email-code rows), as SECOND_FACTOR is read.
 */
export function readEmailCodeSettings (env: Env, answeredByDefault: boolean): EmailCodeSettings {
  return { enabled: readBoolean(env, 'EMAIL_CODES', answeredByDefault) }
}
