/**
 * The email addresses a login call names, as the edge reads them to run the
 * domain check itself (DOMAIN_CHECK_ENFORCED). Every address the backend
 * might act on is returned, so that it can be checked: a body may name
 * `email` twice (JSON.parse keeps the last, many backends' parsers the
 * first), and a Google sign-in names one in the ID token as well as in the
 * body.
 */

const WHITESPACE = new Set([' ', '\t', '\n', '\r'])

function skipWhitespace (text: string, at: number): number {
  let index = at
  while (WHITESPACE.has(text[index] ?? '')) index++
  return index
}

/** The index just past the JSON string starting at `at` (its opening quote). */
function endOfString (text: string, at: number): number {
  let index = at + 1
  while (index < text.length && text[index] !== '"') index += text[index] === '\\' ? 2 : 1
  return index + 1
}

/** The index just past the JSON value starting at `at`. */
function endOfValue (text: string, at: number): number {
  const first = text[at]
  if (first === '"') return endOfString(text, at)
  if (first === '{' || first === '[') {
    let depth = 0
    let index = at
    while (index < text.length) {
      const character = text[index]!
      if (character === '"') {
        index = endOfString(text, index)
        continue
      }
      if (character === '{' || character === '[') depth++
      else if (character === '}' || character === ']') depth--
      index++
      if (depth === 0) return index
    }
    return index
  }
  let index = at
  while (index < text.length && !WHITESPACE.has(text[index]!) && text[index] !== ',' && text[index] !== '}' && text[index] !== ']') index++
  return index
}

/**
 * Every value of the member `key` of the JSON object `text`, at the top
 * level only, repeats included and names compared without case (some
 * frameworks bind `Email` to `email`), in order; [] when `text` is not a
 * JSON object.
 */
export function topLevelMembers (text: string, key: string): unknown[] {
  try {
    const parsed: unknown = JSON.parse(text)
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return []
  } catch {
    return []
  }
  // The text is a valid JSON object from here on, so the scan need not check its grammar.
  const values: unknown[] = []
  let index = skipWhitespace(text, 0) + 1
  while (true) {
    index = skipWhitespace(text, index)
    if (text[index] !== '"') break
    const nameEnd = endOfString(text, index)
    const name = JSON.parse(text.slice(index, nameEnd)) as string
    const valueStart = skipWhitespace(text, skipWhitespace(text, nameEnd) + 1)
    const valueEnd = endOfValue(text, valueStart)
    if (name.toLowerCase() === key) values.push(JSON.parse(text.slice(valueStart, valueEnd)))
    index = skipWhitespace(text, valueEnd)
    if (text[index] !== ',') break
    index++
  }
  return values
}

/**
 * The payload of a bearer JWT in `authorization`, as text, read without
 * verifying the signature; null when there is none or it is not one.
 */
function bearerTokenPayload (authorization: string | undefined): string | null {
  const match = /^Bearer[ \t]+([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]*)$/i.exec(authorization ?? '')
  return match === null ? null : Buffer.from(match[2]!, 'base64url').toString('utf8')
}

/** What a login call names: its email addresses, or `malformed` when an `email` is there but not a string. */
export type LoginEmails = { readonly kind: 'named', readonly emails: readonly string[] } | { readonly kind: 'malformed' }

/**
 * The addresses a login call names: the body's `email` members and, with a
 * bearer ID token (Google), the token's `email` claims. The backend verifies
 * the token's signature, so it can only accept a token whose claim the edge
 * has read here.
 */
export function loginEmails (body: Buffer | undefined, authorization: string | undefined): LoginEmails {
  const named = [
    ...(body === undefined ? [] : topLevelMembers(body.toString('utf8'), 'email')),
    ...topLevelMembers(bearerTokenPayload(authorization) ?? '', 'email')
  ]
  if (named.some((value) => typeof value !== 'string')) return { kind: 'malformed' }
  return { kind: 'named', emails: named as string[] }
}

/**
 * The domain the check asks about, as the page computes it
 * (common/domain-check/email-domain.ts): the part after the last `@`, trimmed; null
 * when there is no `@` or nothing after it (no address the backend accepts).
 */
export function domainOfEmail (email: string): string | null {
  const at = email.lastIndexOf('@')
  if (at < 0) return null
  const domain = email.slice(at + 1).trim()
  return domain === '' ? null : domain
}
