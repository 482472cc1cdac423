import type { FastifyRequest } from 'fastify'
import { OIDC_CLIENT_ID_PATTERN } from '../../shared/oidc/provider-pages.js'


/** The longest Authorization header read for a client id: an id of 64 and a secret far longer than any issued. */
const MAX_BASIC_CREDENTIALS_LENGTH = 1024

function fromBasicAuth (header: string): string | null {
  if (header.length > MAX_BASIC_CREDENTIALS_LENGTH || !/^basic /i.test(header)) return null
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon <= 0) return null
  // RFC 6749 section 2.3.1: the id is form-encoded before it is put in the header.
  try {
    return decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '))
  } catch {
    return null
  }
}

/**
 * The client a call to the provider's token, revocation or introspection
 * endpoint says it comes from: the Basic credentials' id, or else the form's
 * `client_id` (a public client, client_secret_post). Null when it names
 * none, or one no client could have: such a call is counted by its address.
 */
export function clientIdOf (request: Pick<FastifyRequest, 'headers' | 'body'>): string | null {
  const authorization = request.headers.authorization
  const id = authorization !== undefined
    ? fromBasicAuth(authorization)
    : Buffer.isBuffer(request.body) ? new URLSearchParams(request.body.toString('utf8')).get('client_id') : null
  return id !== null && OIDC_CLIENT_ID_PATTERN.test(id) ? id : null
}
