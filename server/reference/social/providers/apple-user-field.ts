/** The longest name part kept; Apple's own fields are far shorter. */
const MAX_NAME_LENGTH = 100

export interface AppleName {
  readonly firstName: string | null
  readonly lastName: string | null
}

const NO_NAME: AppleName = { firstName: null, lastName: null }

function namePart (value: unknown): string | null {
  if (typeof value !== 'string') return null
  // eslint-disable-next-line no-control-regex -- control characters have no place in a name shown on a page or in an email
  const cleaned = value.replace(/[\u0000-\u001f\u007f]/g, '').trim()
  return cleaned === '' ? null : cleaned.slice(0, MAX_NAME_LENGTH)
}

/**
 * The name in the `user` field Apple posts beside the code on a visitor's first sign-in to the app only
 * ("Incorporating Sign in with Apple into other platforms"): JSON, `{"name": {"firstName", "lastName"},
 * "email"}`. Only the name is taken: the field is not signed, so the address comes from the ID token
 * alone. Absent or malformed: no name.
 */
export function appleNameOf (userField: string | null): AppleName {
  if (userField === null || userField.length > 4096) return NO_NAME
  let parsed: unknown
  try {
    parsed = JSON.parse(userField)
  } catch {
    return NO_NAME
  }
  const name = (parsed as { name?: unknown } | null)?.name
  if (name === null || typeof name !== 'object') return NO_NAME
  const { firstName, lastName } = name as { firstName?: unknown, lastName?: unknown }
  return { firstName: namePart(firstName), lastName: namePart(lastName) }
}
