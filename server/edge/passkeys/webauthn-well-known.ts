import type { FastifyInstance } from 'fastify'
import type { PasskeySettings } from '../../shared/passkeys/passkey-config.js'

/** The well-known URL of WebAuthn Related Origin Requests. */
const WEBAUTHN_WELL_KNOWN_PATH = '/.well-known/webauthn'

/** How long browsers may keep the list: a day, so that a change of PASSKEY_RELATED_ORIGINS spreads soon. */
const MAX_AGE_SECONDS = 24 * 3600

/**
 * `GET /.well-known/webauthn` → `{"origins": [...]}`: the origins, beside the
 * page's own, on which a browser may use the passkeys of PASSKEY_RP_ID
 * (WebAuthn Level 3, Related Origin Requests). Browsers fetch it from the
 * RP ID's host. Served only when related origins are configured: otherwise
 * the usual 404 answers, and every passkey stays on its own domain.
 */
export async function webauthnWellKnown (app: FastifyInstance, options: { readonly passkeys: PasskeySettings | null }): Promise<void> {
  const passkeys = options.passkeys
  if (passkeys === null || passkeys.origins.length < 2) return
  const body = JSON.stringify({ origins: passkeys.origins })
  app.get(WEBAUTHN_WELL_KNOWN_PATH, { config: { rateLimit: false } }, async (_request, reply) =>
    reply
      .header('content-type', 'application/json; charset=utf-8')
      .header('cache-control', `public, max-age=${MAX_AGE_SECONDS}`)
      .send(body))
}
