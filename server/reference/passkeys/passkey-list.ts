import type { AccountPasskey } from '../../../common/account/account-state.js'
import { isRefusal } from '../account-changes/account-owner.js'
import type { Answer, RequestFacts } from '../http/answers.js'
import type { PasskeysOptions } from './passkeys.js'

export type PasskeyListOptions = Pick<PasskeysOptions, 'store' | 'owners'>

/** The owner's passkeys, as her account view lists them. */
export class PasskeyList {
  constructor (private readonly options: PasskeyListOptions) {}

  /**
   * `passkeys/list`: the account's passkeys, oldest first. A live session is
   * enough: the list changes nothing, and the page shows it before any
   * change is asked for. Neither the public key nor the counter leaves the service.
   * The account's user handle (`user_id`, as a passkey sign-in answers it)
   * goes with the list, so that the page can tell the browser's passkey
   * manager which passkeys the account still accepts (the WebAuthn Signal API).
   */
  async list (authToken: string | null, facts: RequestFacts): Promise<Answer> {
    const owner = await this.options.owners.check(authToken, facts, 'session', { event: 'passkey.list.refused', signedOut: 'change.signedOut' })
    if (isRefusal(owner)) return owner
    const passkeys: AccountPasskey[] = (await this.options.store.listPasskeys(owner.account.id)).map((passkey) => ({
      id: passkey.id, name: passkey.name, createdAt: passkey.createdAt, lastUsedAt: passkey.lastUsedAt, backedUp: passkey.backedUp
    }))
    return { status: 200, body: { passkeys, user_id: await this.options.store.passkeyUserHandle(owner.account.id) } }
  }
}
