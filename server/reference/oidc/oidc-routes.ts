import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { IncomingMessage } from 'node:http'
import { OIDC_DISCOVERY_PATH, OIDC_PATH_PREFIX } from '../../shared/oidc/provider-pages.js'
import type { EmbeddedProvider } from './embedded-provider.js'
import type { Interactions } from './interactions.js'

export interface OidcRoutesOptions {
  readonly provider: EmbeddedProvider
  readonly interactions: Interactions
  /** PUBLIC_URL: the host and scheme oidc-provider is told the request came to. */
  readonly publicUrl: string
}

/**
 * The forwarding headers oidc-provider reads (it runs with `proxy`), stated
 * from PUBLIC_URL: the issuer and every URL the provider makes never follow
 * a request's own Host or X-Forwarded-* headers.
 */
function stateForwarding (raw: IncomingMessage, publicUrl: URL): void {
  raw.headers['x-forwarded-host'] = publicUrl.host
  raw.headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1)
  delete raw.headers.forwarded
}

/**
 * The provider's paths (discovery, and everything under /oidc/), in a
 * plugin of their own: no body parser, so that oidc-provider reads the raw
 * request, which it answers itself (`reply.hijack()`); and the interactions,
 * which the reference service answers. All 404 while no client is configured.
 */
export async function oidcRoutes (app: FastifyInstance, options: OidcRoutesOptions): Promise<void> {
  const publicUrl = new URL(options.publicUrl)
  app.removeAllContentTypeParsers()
  // The stream is left unread: oidc-provider (or the consent form's reader) reads it.
  app.addContentTypeParser('*', (_request, _payload, done) => { done(null) })
  app.addHook('onRequest', async (request) => { stateForwarding(request.raw, publicUrl) })

  const whenEnabled = (handler: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>) =>
    async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
      if (!await options.provider.enabled()) {
        reply.callNotFound()
        return reply
      }
      return await handler(request, reply)
    }

  const passToProvider = whenEnabled(async (request, reply) => {
    const { handle } = await options.provider.current()
    reply.hijack()
    await handle(request.raw, reply.raw)
    return undefined
  })

  app.all(OIDC_DISCOVERY_PATH, passToProvider)
  app.all(`${OIDC_PATH_PREFIX}*`, passToProvider)
  app.get(`${OIDC_PATH_PREFIX}interaction/:uid`, whenEnabled(async (request, reply) =>
    await options.interactions.show((await options.provider.current()).provider, request, reply)))
  app.post(`${OIDC_PATH_PREFIX}interaction/:uid/consent`, whenEnabled(async (request, reply) =>
    await options.interactions.decide((await options.provider.current()).provider, request, reply)))
}
