import { createHmac, timingSafeEqual } from 'node:crypto'
import { Secret } from 'otpauth'

/**
 * A pending authenticator secret belongs to the enrolment that started it
 * (docs/second-factor.md#one-enrolment-at-a-time): another enrolment of the
 * same account may neither replace it nor confirm it. The secret is derived
 * from what authorised the start (the login's challenge, or the auth token
 * of a signed-in enrolment) and from when its pending secret expires, under a
 * key of its own, so the service tells whether a call comes from the same
 * enrolment by deriving again and comparing, with no column to keep the
 * enrolment in. The expiry makes each enrolment's secret its own: an owner
 * who turns the second factor off (a leaked key) and on again with the same
 * auth token gets a new key. Without the key (in DATA_DIR/keys) the secret is
 * as unpredictable as a random one.
 */

/** The derived-secret purpose (server/reference/keys/derived-secrets.ts) of the key the secrets are derived under. */
export const ENROLMENT_SECRET_PURPOSE = 'second-factor-enrolment-secret'

/** What authorised an enrolment: its login's challenge, or the auth token of the signed-in account. */
export type EnrolmentCredential = { readonly challenge: string } | { readonly authToken: string }

/** RFC 4226's recommended length for SHA-1 secrets, as a random secret had. */
const SECRET_BYTES = 20

export class EnrolmentSecrets {
  constructor (private readonly key: Buffer) {}

  /**
   * The secret (base32) the enrolment `credential` sets up for the account, whose pending secret
   * expires at `pendingUntil`: the same for every call of that enrolment.
   */
  secretFor (accountId: string, credential: EnrolmentCredential, pendingUntil: number): string {
    const [kind, value] = 'challenge' in credential ? ['challenge', credential.challenge] : ['bearer', credential.authToken]
    const bytes = createHmac('sha256', this.key).update(`${accountId}\n${kind}\n${value}\n${pendingUntil}`).digest().subarray(0, SECRET_BYTES)
    return new Secret({ buffer: new Uint8Array(bytes).buffer }).base32
  }

  /** Whether `pending` (an opened pending secret, expiring at `pendingUntil`) is the one the enrolment `credential` started. */
  startedBy (pending: string, pendingUntil: number, accountId: string, credential: EnrolmentCredential): boolean {
    const expected = Buffer.from(this.secretFor(accountId, credential, pendingUntil))
    const actual = Buffer.from(pending)
    return actual.length === expected.length && timingSafeEqual(actual, expected)
  }
}
