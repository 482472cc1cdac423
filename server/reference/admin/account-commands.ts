import type { Account, PasskeyCredential } from '../store/account-store.js'
import { accountFor, type Command } from './command.js'

function describe (account: Account, organizations: readonly string[], secondFactor: string): string {
  const name = [account.firstName, account.lastName].filter((part) => part !== null).join(' ')
  const rows: Array<[string, string]> = [
    ['Email', account.email],
    ['Account id', account.id],
    ['Name', name === '' ? 'none' : name],
    ['Created', new Date(account.createdAt).toISOString()],
    ['Verified', account.emailVerifiedAt === null ? 'no' : `yes, ${new Date(account.emailVerifiedAt).toISOString()}`],
    ['Password', account.passwordHash === null ? 'no' : 'yes'],
    ['Google', account.googleSubject === null ? 'no' : 'yes'],
    ['Organisations', organizations.length === 0 ? 'none' : organizations.join(', ')],
    ['Second factor', secondFactor]
  ]
  const width = Math.max(...rows.map(([label]) => label.length))
  return rows.map(([label, value]) => `${`${label}:`.padEnd(width + 2)}${value}`).join('\n')
}

function describePasskeys (account: Account, passkeys: readonly PasskeyCredential[]): string {
  if (passkeys.length === 0) return `${account.email} has no passkey`
  const lines = passkeys.map((passkey) => [
    passkey.id,
    `  name: ${passkey.name ?? 'none'}`,
    `  created: ${new Date(passkey.createdAt).toISOString()}`,
    `  last used: ${passkey.lastUsedAt === null ? 'never' : new Date(passkey.lastUsedAt).toISOString()}`,
    `  synced: ${passkey.deviceType === 'multiDevice' ? (passkey.backedUp ? 'yes, backed up' : 'may be, not backed up yet') : 'no, bound to one device'}`
  ].join('\n'))
  return [`${account.email} has ${passkeys.length} passkey${passkeys.length === 1 ? '' : 's'}:`, ...lines].join('\n')
}

/** What an operator reads about an account: its details, its passkeys; and the address marked verified. */
export const ACCOUNT_COMMANDS: Readonly<Record<string, Command>> = {
  'verify-email': {
    parameters: ['email'],
    async run (store, [email]) {
      const account = await accountFor(store, email!)
      if (account.emailVerifiedAt !== null) return `${account.email} was verified already, on ${new Date(account.emailVerifiedAt).toISOString()}`
      await store.markEmailVerified(account.id, store.now())
      return `${account.email} is now verified`
    }
  },
  show: {
    parameters: ['email'],
    async run (store, [email]) {
      const account = await accountFor(store, email!)
      const factor = await store.findSecondFactor(account.id)
      const required = await store.secondFactorRequiredFor(account.id)
      const secondFactor = factor?.enrolledAt != null
        ? `authenticator app since ${new Date(factor.enrolledAt).toISOString()}, ${await store.countUnusedRecoveryCodes(account.id)} recovery codes left`
        : required ? 'none, but an organisation requires one: enrolment at the next sign-in' : 'none'
      return describe(account, await store.listMemberships(account.id), secondFactor)
    }
  },
  passkeys: {
    parameters: ['email'],
    async run (store, [email]) {
      const account = await accountFor(store, email!)
      return describePasskeys(account, await store.listPasskeys(account.id))
    }
  }
}
