import type { Adapter, AdapterConstructor, AdapterPayload } from 'oidc-provider'
import type { AccountStore } from '../store/account-store.js'

/**
 * The storage oidc-provider's `adapter` setting takes, over the store's
 * oidc_payloads table (SQLite or PostgreSQL), so that sessions, grants,
 * codes and tokens outlive a restart and are shared by every instance.
 */

/** The models whose rows belong to a grant and go when it is revoked (as oidc-provider's memory adapter keeps them). */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest', 'PreAuthorizedCode'])

export interface OidcAdapterOptions {
  /**
   * REFRESH_REUSE_GRACE_SECONDS: a refresh token consumed less than this
   * long ago is found unconsumed, so that a second exchange racing the
   * first (or repeating one whose answer was lost) gets tokens too, as the
   * page's sessions do (docs/reference-service.md#how-long-a-session-lives).
   * Later, it is found consumed, and oidc-provider revokes its grant.
   */
  readonly reuseGraceSeconds: number
  /** Epoch milliseconds: the store's clock (AccountStore.now), which every instance on the store shares. */
  readonly now: () => number
}

/** oidc-provider's `consumed` mark is epoch seconds. */
function epochSeconds (ms: number): number {
  return Math.floor(ms / 1000)
}

/** The class oidc-provider's `adapter` setting takes: one instance per model. */
export function oidcAdapterFactory (store: AccountStore, options: OidcAdapterOptions): AdapterConstructor {
  const payloads = store.oidcPayloads
  const graceMs = options.reuseGraceSeconds * 1000
  const { now } = options

  return class StoreAdapter implements Adapter {
    constructor (private readonly model: string) {}

    async upsert (id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      // The first consumption is a column of its own, which find turns back into the mark.
      const consumed: unknown = payload.consumed
      const kept: AdapterPayload = { ...payload }
      delete kept.consumed
      await payloads.upsert({
        model: this.model,
        id,
        payload: JSON.stringify(kept),
        grantId: GRANTABLE.has(this.model) ? payload.grantId ?? null : null,
        uid: this.model === 'Session' ? payload.uid ?? null : null,
        userCode: payload.userCode ?? null,
        clientId: payload.clientId ?? null,
        expiresAt: typeof expiresIn === 'number' ? now() + expiresIn * 1000 : null
      })
      if (typeof consumed === 'number') await payloads.consume(this.model, id, consumed * 1000)
    }

    async find (id: string): Promise<AdapterPayload | undefined> {
      const at = now()
      const record = await payloads.find(this.model, id, at)
      if (record === null) return undefined
      const payload = JSON.parse(record.payload) as AdapterPayload
      if (record.consumedAt === null) return payload
      // Only a refresh token is forgiven a reuse: a code stays single use (RFC 6749 section 4.1.2).
      const forgiven = this.model === 'RefreshToken' && at - record.consumedAt < graceMs
      return forgiven ? payload : { ...payload, consumed: epochSeconds(record.consumedAt) }
    }

    async findByUid (uid: string): Promise<AdapterPayload | undefined> {
      const record = await payloads.findByUid(this.model, uid, now())
      return record === null ? undefined : await this.find(record.id)
    }

    async findByUserCode (userCode: string): Promise<AdapterPayload | undefined> {
      const record = await payloads.findByUserCode(this.model, userCode, now())
      return record === null ? undefined : await this.find(record.id)
    }

    async consume (id: string): Promise<void> {
      await payloads.consume(this.model, id, now())
    }

    async destroy (id: string): Promise<void> {
      await payloads.destroy(this.model, id)
    }

    async revokeByGrantId (grantId: string): Promise<void> {
      await payloads.revokeByGrantId(grantId)
    }
  }
}
