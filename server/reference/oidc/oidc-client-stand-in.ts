import { createHash, timingSafeEqual } from 'node:crypto'
import type { Adapter, AdapterPayload } from 'oidc-provider'

/*
 * A stand-in, to be replaced whole by the clients' own modules (the client
 * list's parsing and the store's adapter, beside this file): the client
 * interface the provider uses, a registry over OIDC_CLIENTS as JSON, and a
 * memory adapter. Only what the provider needs, and no validation beyond it.
 */

/** A client of the OpenID Connect provider, as the registry gives it. */
export interface OidcClient {
  readonly clientId: string
  readonly name: string
  readonly redirectUris: readonly string[]
  readonly postLogoutRedirectUris: readonly string[]
  readonly clientUri: string | null
  readonly backchannelLogoutUri: string | null
  readonly firstParty: boolean
  readonly authMethod: 'client_secret_basic' | 'client_secret_post' | 'none'
  /** base64url SHA-256 of the secret; null for a public client. */
  readonly secretSha256: string | null
}

/** Where the provider finds its clients. */
export interface OidcClientRegistry {
  find (clientId: string): Promise<OidcClient | null>
  any (): Promise<boolean>
}

interface ClientEntry {
  readonly client_id: string
  readonly client_name?: string
  readonly redirect_uris: readonly string[]
  readonly post_logout_redirect_uris?: readonly string[]
  readonly client_uri?: string
  readonly backchannel_logout_uri?: string
  readonly first_party?: boolean
  readonly token_endpoint_auth_method?: OidcClient['authMethod']
  readonly client_secret?: string
  readonly client_secret_sha256?: string
}

function sha256 (text: string): string {
  return createHash('sha256').update(text).digest('base64url')
}

/** OIDC_CLIENTS as JSON: the clients' part checks every field and reads a file too. */
export function parseOidcClients (raw: string | undefined): readonly OidcClient[] {
  if (raw === undefined || raw.trim() === '') return []
  return (JSON.parse(raw) as ClientEntry[]).map((entry) => {
    const authMethod = entry.token_endpoint_auth_method ?? 'client_secret_basic'
    return {
      clientId: entry.client_id,
      name: entry.client_name ?? entry.client_id,
      redirectUris: entry.redirect_uris,
      postLogoutRedirectUris: entry.post_logout_redirect_uris ?? [],
      clientUri: entry.client_uri ?? null,
      backchannelLogoutUri: entry.backchannel_logout_uri ?? null,
      firstParty: entry.first_party ?? false,
      authMethod,
      secretSha256: authMethod === 'none' ? null : entry.client_secret_sha256 ?? sha256(entry.client_secret ?? '')
    }
  })
}

/** Whether `presented` is the client's secret, compared with its hash in constant time. */
export function secretMatches (client: OidcClient, presented: string): boolean {
  if (client.secretSha256 === null) return false
  const expected = Buffer.from(client.secretSha256)
  const actual = Buffer.from(sha256(presented))
  return expected.length === actual.length && timingSafeEqual(expected, actual)
}

/** The registry of the configured clients. */
export function configuredClients (clients: readonly OidcClient[]): OidcClientRegistry {
  const byId = new Map(clients.map((client) => [client.clientId, client]))
  return {
    find: async (clientId) => byId.get(clientId) ?? null,
    any: async () => byId.size > 0
  }
}

interface Stored {
  readonly payload: AdapterPayload
  readonly expiresAt: number
}

/** An adapter class over one map shared by every provider built with it: a rebuilt provider keeps its sessions. */
export function memoryAdapterFactory (): new (model: string) => Adapter {
  const rows = new Map<string, Stored>()
  const live = (key: string): Stored | undefined => {
    const row = rows.get(key)
    if (row !== undefined && row.expiresAt <= Date.now()) rows.delete(key)
    return row !== undefined && row.expiresAt > Date.now() ? row : undefined
  }
  return class MemoryAdapter implements Adapter {
    constructor (private readonly model: string) {}
    private key (id: string): string { return `${this.model}:${id}` }
    async upsert (id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      rows.set(this.key(id), { payload, expiresAt: Date.now() + expiresIn * 1000 })
    }

    async find (id: string): Promise<AdapterPayload | undefined> { return live(this.key(id))?.payload }
    async findByUserCode (): Promise<undefined> { return undefined }
    async findByUid (uid: string): Promise<AdapterPayload | undefined> {
      for (const [key, row] of rows) if (key.startsWith(`${this.model}:`) && row.payload.uid === uid && live(key) !== undefined) return row.payload
      return undefined
    }

    async consume (id: string): Promise<void> {
      const row = live(this.key(id))
      if (row !== undefined) rows.set(this.key(id), { ...row, payload: { ...row.payload, consumed: Math.floor(Date.now() / 1000) } })
    }

    async destroy (id: string): Promise<void> { rows.delete(this.key(id)) }
    async revokeByGrantId (grantId: string): Promise<void> {
      for (const [key, row] of rows) if (row.payload.grantId === grantId) rows.delete(key)
    }
  }
}
