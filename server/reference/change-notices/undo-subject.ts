/**
 * What a "this wasn't me" link removes besides ending the sessions, kept as
 * its email_links row's subject: the passkey the email announced, or the
 * authenticator app enrolled at the time it names (a later enrolment is not
 * the one announced, and stays).
 */
export type UndoSubject =
  | { readonly kind: 'passkey', readonly id: string }
  | { readonly kind: 'second-factor', readonly enrolledAt: number }

const PASSKEY = 'passkey:'
const SECOND_FACTOR = 'second-factor:'

export function undoSubjectText (subject: UndoSubject): string {
  return subject.kind === 'passkey' ? `${PASSKEY}${subject.id}` : `${SECOND_FACTOR}${subject.enrolledAt}`
}

/** The subject a row holds; null for none (the change had nothing to remove) or one this version does not know. */
export function parseUndoSubject (text: string | null): UndoSubject | null {
  if (text?.startsWith(PASSKEY) === true) return { kind: 'passkey', id: text.slice(PASSKEY.length) }
  if (text?.startsWith(SECOND_FACTOR) === true) {
    const enrolledAt = Number(text.slice(SECOND_FACTOR.length))
    return Number.isSafeInteger(enrolledAt) ? { kind: 'second-factor', enrolledAt } : null
  }
  return null
}
