/**
 * What a "this wasn't me" link removes besides ending the sessions, kept as
 * its email_links row's subject: the passkey the email announced, the
 * authenticator app enrolled at the time it names (a later enrolment is not
 * the one announced, and stays), the recovery codes that were renewed, or
 * the new address (the one before is put back), or the social identity linked.
 */
export type UndoSubject =
  | { readonly kind: 'passkey', readonly id: string }
  | { readonly kind: 'second-factor', readonly enrolledAt: number }
  /** Recovery codes renewed: whoever renewed them holds ten ways past the authenticator, which the link voids. */
  | { readonly kind: 'recovery-codes' }
  /** The address changed: the link, sent to the one before, puts it back. */
  | { readonly kind: 'email', readonly previous: string }
  /** A social identity linked: the link goes, if it is still that identity's. */
  | { readonly kind: 'social', readonly provider: string, readonly subject: string }

const PASSKEY = 'passkey:'
const SECOND_FACTOR = 'second-factor:'
const RECOVERY_CODES = 'recovery-codes'
const EMAIL = 'email:'
const SOCIAL = 'social:'

export function undoSubjectText (subject: UndoSubject): string {
  if (subject.kind === 'recovery-codes') return RECOVERY_CODES
  if (subject.kind === 'email') return `${EMAIL}${subject.previous}`
  // A provider id has no colon (SOCIAL_PROVIDER_ID_FORMAT); the subject may.
  if (subject.kind === 'social') return `${SOCIAL}${subject.provider}:${subject.subject}`
  return subject.kind === 'passkey' ? `${PASSKEY}${subject.id}` : `${SECOND_FACTOR}${subject.enrolledAt}`
}

/** The subject a row holds; null for none (the change had nothing to remove) or one this version does not know. */
export function parseUndoSubject (text: string | null): UndoSubject | null {
  if (text === RECOVERY_CODES) return { kind: 'recovery-codes' }
  if (text?.startsWith(PASSKEY) === true) return { kind: 'passkey', id: text.slice(PASSKEY.length) }
  if (text?.startsWith(EMAIL) === true) return { kind: 'email', previous: text.slice(EMAIL.length) }
  if (text?.startsWith(SOCIAL) === true) {
    const rest = text.slice(SOCIAL.length)
    const colon = rest.indexOf(':')
    return colon > 0 ? { kind: 'social', provider: rest.slice(0, colon), subject: rest.slice(colon + 1) } : null
  }
  if (text?.startsWith(SECOND_FACTOR) === true) {
    const enrolledAt = Number(text.slice(SECOND_FACTOR.length))
    return Number.isSafeInteger(enrolledAt) ? { kind: 'second-factor', enrolledAt } : null
  }
  return null
}
