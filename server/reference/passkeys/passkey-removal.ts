import type { AccountStore } from '../store/account-store.js'

/**
 * Removes one of the account's passkeys and ends every session a sign-in
 * with it started (docs/passkeys.md#removing-a-passkey): a passkey someone
 * else registered stops signing in, and the sessions it gave them stop
 * refreshing at once rather than for the refresh token's 14 days. Null when
 * the account has no such passkey; else how many sessions ended.
 */
export async function removePasskeyAndItsSessions (
  store: Pick<AccountStore, 'removePasskey' | 'revokeSessionsSignedInWith'>, accountId: string, credentialId: string, now: number
): Promise<number | null> {
  if (!await store.removePasskey(accountId, credentialId)) return null
  // After the removal: a sign-in checked meanwhile either stored its session before this
  // revocation, or finds the passkey gone once it has (Passkeys.login).
  return await store.revokeSessionsSignedInWith(accountId, credentialId, now)
}
