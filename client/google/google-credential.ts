/**
 * The email in a Google credential (an ID token). Only read, not verified:
 * the accounts service verifies the token; the page needs the address for
 * the login payload and the domain check.
 */
export function emailFromGoogleCredential (credential: string): string | null {
  const payload = credential.split('.')[1]
  if (payload === undefined) return null
  try {
    const base64 = payload.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(payload.length / 4) * 4, '=')
    const json = new TextDecoder().decode(Uint8Array.from(atob(base64), (character) => character.charCodeAt(0)))
    const email: unknown = (JSON.parse(json) as { email?: unknown }).email
    return typeof email === 'string' && email.includes('@') ? email : null
  } catch {
    return null
  }
}

