import type { FastifyInstance } from 'fastify'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { SOCIAL_ICON_PATH, type SocialProvider } from '../../../common/social/social-providers.js'
import { ConfigError } from '../../shared/env-parsing.js'
import { socialProvidersOf, type SocialConnection } from '../../shared/social/social-connections.js'
import { SVG_CONTENT_SECURITY_POLICY } from '../brand/brand-assets.js'
import { STATIC_SECURITY_HEADERS } from '../http/security-headers.js'

/*
 * The generic connections' icons (SOCIAL_CONNECTIONS' `icon`, docs/social-sign-in.md), read once at start
 * and served from the page's own origin at `${SOCIAL_ICON_PATH}<id>.svg|png`: the page's `img-src` stays
 * 'self', and the operator's file never has to be reachable from the visitor's browser.
 */

/** Each address names one start's bytes (`?v=` their digest): cached for a year, as the build's hashed assets are. */
const ICON_CACHE_CONTROL = 'public, max-age=31536000, immutable'

interface ServedIcon {
  readonly body: Buffer
  readonly contentType: string
  readonly etag: string
}

/** The icons as the edge serves them, and the page's view of the connections with each icon's address. */
export interface SocialIcons {
  /** By path under SOCIAL_ICON_PATH (`gitlab.svg`). */
  readonly files: ReadonlyMap<string, ServedIcon>
  /** socialProvidersOf the connections, each icon's address carrying its digest. */
  readonly providers: readonly SocialProvider[]
}

/**
 * Reads every generic connection's icon file, once, at start (the parser checked its type and size): a file gone
 * since stops the start with the variable's name, as a bad value does.
 */
export function loadSocialIcons (connections: readonly SocialConnection[]): SocialIcons {
  const files = new Map<string, ServedIcon>()
  const versions = new Map<string, string>()
  for (const connection of connections) {
    if (connection.iconFile === null || connection.icon === null) continue
    let body: Buffer
    try {
      body = readFileSync(connection.iconFile.path)
    } catch (error) {
      throw new ConfigError('SOCIAL_CONNECTIONS', `${connection.id}: icon could not be read (${(error as { code?: string }).code ?? 'unreadable'})`)
    }
    const digest = createHash('sha256').update(body).digest('base64url').slice(0, 16)
    files.set(connection.icon.slice(SOCIAL_ICON_PATH.length), { body, contentType: connection.iconFile.contentType, etag: `"${digest}"` })
    versions.set(connection.id, `${connection.icon}?v=${digest}`)
  }
  const providers = socialProvidersOf(connections).map((provider) => provider.icon === null ? provider : { ...provider, icon: versions.get(provider.id) ?? provider.icon })
  return { files, providers }
}

/** Serves the icons: GET (and HEAD) `${SOCIAL_ICON_PATH}<id>.svg|png`; any other name is the edge's 404. */
export async function socialIconRoutes (app: FastifyInstance, options: { readonly icons: SocialIcons }): Promise<void> {
  if (options.icons.files.size === 0) return
  app.get(`${SOCIAL_ICON_PATH}:file`, { helmet: false }, async (request, reply) => {
    const icon = options.icons.files.get((request.params as { file: string }).file)
    if (icon === undefined) return reply.callNotFound()
    void reply.headers({
      ...STATIC_SECURITY_HEADERS,
      // As the operator's SVG logo: the edge's static policy has `script-src 'self'`, which would let an SVG opened
      // as a document (its address typed or linked) run the edge's scripts; this one lets it draw and nothing else.
      // In the page's <img> an SVG runs no script whatever its headers. A PNG gets it too: it is never a document.
      'content-security-policy': SVG_CONTENT_SECURITY_POLICY,
      'content-type': icon.contentType,
      'cache-control': ICON_CACHE_CONTROL,
      etag: icon.etag
    })
    if (request.headers['if-none-match'] === icon.etag) return reply.code(304).send()
    return reply.send(icon.body)
  })
}
