import type { OidcClient, OidcClientAuthMethod } from '../oidc/oidc-clients.js'
import type { OidcPayloadRecord } from './account-store.js'

/**
 * The OpenID Connect provider's tables as both stores read them (the
 * SQLite and PostgreSQL twins in sqlite-oidc.ts and postgres-oidc.ts).
 */

export interface OidcClientRow {
  client_id: string
  name: string
  /** JSON arrays. */
  redirect_uris: string
  post_logout_redirect_uris: string
  client_uri: string | null
  backchannel_logout_uri: string | null
  /** 0 or 1 in SQLite, a boolean in PostgreSQL. */
  first_party: number | boolean
  auth_method: string
  secret_sha256: string | null
}

export interface OidcPayloadRow {
  model: string
  id: string
  payload: string
  grant_id: string | null
  uid: string | null
  user_code: string | null
  client_id: string | null
  expires_at: number | null
  consumed_at: number | null
}

export function toOidcClient (row: OidcClientRow): OidcClient {
  return {
    clientId: row.client_id,
    name: row.name,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    postLogoutRedirectUris: JSON.parse(row.post_logout_redirect_uris) as string[],
    clientUri: row.client_uri,
    backchannelLogoutUri: row.backchannel_logout_uri,
    firstParty: row.first_party === true || row.first_party === 1,
    authMethod: row.auth_method as OidcClientAuthMethod,
    secretSha256: row.secret_sha256
  }
}

/** The columns of an oidc_clients row after client_id, in the order the inserts name them. */
export function oidcClientValues (client: OidcClient): [string, string, string, string, string | null, string | null, boolean, string, string | null] {
  return [client.clientId, client.name, JSON.stringify(client.redirectUris), JSON.stringify(client.postLogoutRedirectUris),
    client.clientUri, client.backchannelLogoutUri, client.firstParty, client.authMethod, client.secretSha256]
}

export function toOidcPayload (row: OidcPayloadRow | undefined): OidcPayloadRecord | null {
  if (row === undefined) return null
  return {
    model: row.model,
    id: row.id,
    payload: row.payload,
    grantId: row.grant_id,
    uid: row.uid,
    userCode: row.user_code,
    clientId: row.client_id,
    expiresAt: row.expires_at,
    consumedAt: row.consumed_at
  }
}

/** The columns of an oidc_payloads row but consumed_at, in the order the upserts name them. */
export function oidcPayloadValues (record: Omit<OidcPayloadRecord, 'consumedAt'>): [string, string, string, string | null, string | null, string | null, string | null, number | null] {
  return [record.model, record.id, record.payload, record.grantId, record.uid, record.userCode, record.clientId, record.expiresAt]
}
