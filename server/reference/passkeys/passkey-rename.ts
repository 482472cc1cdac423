import { isRefusal } from '../account-changes/account-owner.js'
import { logAuthEvent } from '../audit/audit.js'
import { errorAnswer as error, successAnswer, type Answer, type RequestFacts } from '../http/answers.js'
import { asBody, CONTROL_CHARACTERS } from '../http/validation.js'
import { say } from '../languages/answer-texts.js'
import { PASSKEY_ID_FORMAT } from './passkey-removal.js'
import type { PasskeysOptions } from './passkeys.js'

/** The most characters (code points, after trimming) a passkey's name may have. */
const PASSKEY_NAME_MAX_LENGTH = 64

/** A new passkey name: trimmed, 1 to PASSKEY_NAME_MAX_LENGTH characters, none that hides or reorders text (it is shown in emails). */
function parsePasskeyName (value: unknown): string | null {
  if (typeof value !== 'string') return null
  const name = value.trim()
  const length = [...name].length
  return length >= 1 && length <= PASSKEY_NAME_MAX_LENGTH && !CONTROL_CHARACTERS.test(name) ? name : null
}

export type PasskeyRenameOptions = Pick<PasskeysOptions, 'store' | 'owners'>

/** The owner's name for one of her passkeys. */
export class PasskeyRename {
  constructor (private readonly options: PasskeyRenameOptions) {}

  /**
   * `passkeys/rename`: names one of the account's passkeys, with a fresh
   * proof (a passkey's name is what the owner goes by when she removes one,
   * and what a change's email calls it). Another account's passkey is
   * answered as an unknown one.
   */
  async rename (authToken: string | null, body: unknown, facts: RequestFacts): Promise<Answer> {
    const owner = await this.options.owners.check(authToken, facts, 'proof', { event: 'passkey.rename.refused', signedOut: 'change.signedOut' })
    if (isRefusal(owner)) return owner
    const { account } = owner
    const { id, name: given } = asBody(body)
    if (typeof id !== 'string' || !PASSKEY_ID_FORMAT.test(id)) return error(400, say(facts, 'passkey.idInvalid'))
    const name = parsePasskeyName(given)
    if (name === null) return error(400, say(facts, { key: 'passkey.nameInvalid', params: { max: PASSKEY_NAME_MAX_LENGTH } }))
    if (!await this.options.store.renamePasskey(account.id, id, name)) {
      logAuthEvent(facts, 'passkey.rename.refused', { accountId: account.id, clientAddress: facts.clientAddress, reason: 'unknown' })
      return error(404, say(facts, 'passkey.notFound'))
    }
    // Not the name: the owner's own words stay out of the log.
    logAuthEvent(facts, 'passkey.renamed', { accountId: account.id, clientAddress: facts.clientAddress })
    return successAnswer(say(facts, 'passkey.renamed'))
  }
}
