import { isRefusal } from '../account-changes/account-owner.js'
import { logAuthEvent } from '../audit/audit.js'
import { errorAnswer as error, successAnswer, type Answer, type RequestFacts } from '../http/answers.js'
import { describeBrowser } from '../known-browsers/browser-names.js'
import { say } from '../languages/answer-texts.js'
import type { AccountStore } from '../store/account-store.js'
import type { PasskeysOptions } from './passkeys.js'

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
  // revocation, or finds the passkey gone once it has (PasskeySignIn.login).
  return await store.revokeSessionsSignedInWith(accountId, credentialId, now)
}

/** A credential id as the page sends it (base64url; WebAuthn allows up to 1023 bytes, 1366 characters): anything else is refused before the store is asked. */
export const PASSKEY_ID_FORMAT = /^[\w-]{1,1366}$/

export type PasskeyRemovalOptions = Pick<PasskeysOptions, 'store' | 'owners' | 'changeNotices' | 'now'>

/** The owner's removal of one of her passkeys. */
export class PasskeyRemoval {
  constructor (private readonly options: PasskeyRemovalOptions) {}

  /** `passkeys/remove`: removes one of the account's passkeys, with a fresh proof, and ends the sessions it started. */
  async remove (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    const { store } = this.options
    const owner = await this.options.owners.check(authToken, facts, 'proof', { event: 'passkey.remove.refused', signedOut: 'change.signedOut' })
    if (isRefusal(owner)) return owner
    const { account } = owner
    const id = body !== null && typeof body === 'object' ? (body as Record<string, unknown>).id : undefined
    if (typeof id !== 'string' || !PASSKEY_ID_FORMAT.test(id)) return error(400, say(facts, 'passkey.idInvalid'))
    // Read first: the email names it.
    const passkey = await store.findPasskey(id)
    const sessionsEnded = passkey?.accountId === account.id ? await removePasskeyAndItsSessions(store, account.id, id, this.options.now()) : null
    if (passkey?.accountId !== account.id || sessionsEnded === null) {
      logAuthEvent(facts, 'passkey.remove.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'unknown' })
      return error(404, say(facts, 'passkey.notFound'))
    }
    logAuthEvent(facts, 'passkey.removed', { accountId: account.id, clientAddress: facts.clientAddress, sessionsEnded })
    this.options.changeNotices.tellOwner(account, { kind: 'passkey-removed', passkeyName: passkey.name ?? describeBrowser(undefined) }, facts)
    return successAnswer(say(facts, 'passkey.removed'))
  }
}
