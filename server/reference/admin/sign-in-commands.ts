import { removePasskeyAndItsSessions } from '../passkeys/passkey-removal.js'
import { isCredentialId } from '../passkeys/passkey-requests.js'
import { accountFor, auditLine, CommandError, EXIT, type Command } from './command.js'

/** An operator's help for an owner locked out or worried: a factor removed, every session ended. */
export const SIGN_IN_COMMANDS: Readonly<Record<string, Command>> = {
  'remove-second-factor': {
    parameters: ['email'],
    async run (store, [email]) {
      const account = await accountFor(store, email!)
      const removed = await store.removeSecondFactor(account.id)
      await store.forgetRememberedBrowsers(account.id, store.now())
      if (!removed) throw new CommandError(`${account.email} has no second factor`)
      auditLine('second-factor.removed-by-operator', { accountId: account.id })
      const required = await store.secondFactorRequiredFor(account.id)
      return `removed the authenticator app and recovery codes of ${account.email}; ` +
        (required ? 'an organisation of the account requires one: it enrols again at its next sign-in' : 'it signs in with its password alone')
    }
  },
  'end-sessions': {
    parameters: ['email'],
    async run (store, [email]) {
      const account = await accountFor(store, email!)
      const now = store.now()
      await store.revokeAccountRefreshTokens(account.id, now)
      await store.forgetRememberedBrowsers(account.id, now)
      await store.voidFreshProofs(account.id)
      await store.voidSecondFactorChallenges(account.id)
      // The browsers known for "was this you?" stay: they only spare their owner an email, and with none
      // left the next sign-in, whoever's, would count as the account's first browser and send none.
      auditLine('sessions.ended-by-operator', { accountId: account.id })
      return `ended every session of ${account.email}: its refresh tokens are revoked (auth tokens already issued change ` +
        'nothing on the account from now on, and end within 15 minutes), and browsers remembered for its second factor are asked for a code again'
    }
  },
  'remove-passkey': {
    parameters: ['email', 'passkey-id'],
    async run (store, [email, id]) {
      if (!isCredentialId(id)) throw new CommandError(`${id} is not a passkey id (base64url, as the passkeys command lists them)`, EXIT.USAGE)
      const account = await accountFor(store, email!)
      const sessionsEnded = await removePasskeyAndItsSessions(store, account.id, id, store.now())
      if (sessionsEnded === null) throw new CommandError(`${account.email} has no passkey ${id}`)
      auditLine('passkey.removed-by-operator', { accountId: account.id, sessionsEnded })
      return `removed passkey ${id} of ${account.email} and ended ${sessionsEnded} session${sessionsEnded === 1 ? '' : 's'} it started ` +
        '(auth tokens already issued end within 15 minutes); the account\'s other sessions go on'
    }
  }
}
