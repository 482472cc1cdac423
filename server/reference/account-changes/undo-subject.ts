/**
 * What a "this wasn't me" link removes besides ending the sessions, kept as
 * its email_links row's subject: the passkey the email announced, the
 * authenticator app enrolled at the time it names (a later enrolment is not
 * the one announced, and stays), or the recovery codes that were renewed.
 */
export type UndoSubject =
  | { readonly kind: 'passkey', readonly id: string }
  | { readonly kind: 'second-factor', readonly enrolledAt: number }
  /** Recovery codes renewed: whoever renewed them holds ten ways past the authenticator, which the link voids. */
  | { readonly kind: 'recovery-codes' }

const PASSKEY = 'passkey:'
const SECOND_FACTOR = 'second-factor:'
const RECOVERY_CODES = 'recovery-codes'

export function undoSubjectText (subject: UndoSubject): string {
  if (subject.kind === 'recovery-codes') return RECOVERY_CODES
  return subject.kind === 'passkey' ? `${PASSKEY}${subject.id}` : `${SECOND_FACTOR}${subject.enrolledAt}`
}

/** The subject a row holds; null for none (the change had nothing to remove) or one this version does not know. */
export function parseUndoSubject (text: string | null): UndoSubject | null {
  if (text === RECOVERY_CODES) return { kind: 'recovery-codes' }
  if (text?.startsWith(PASSKEY) === true) return { kind: 'passkey', id: text.slice(PASSKEY.length) }
  if (text?.startsWith(SECOND_FACTOR) === true) {
    const enrolledAt = Number(text.slice(SECOND_FACTOR.length))
    return Number.isSafeInteger(enrolledAt) ? { kind: 'second-factor', enrolledAt } : null
  }
  return null
}
