import { accountFor, auditLine, CommandError, organizationArgument, type Command } from './command.js'

/** Organisations have no page of their own: their members and their second-factor requirement are managed here. */
export const ORGANISATION_COMMANDS: Readonly<Record<string, Command>> = {
  'add-member': {
    parameters: ['email', 'organisation'],
    flags: ['--allow-unverified'],
    async run (store, [email, organisation], flags) {
      const organization = organizationArgument(organisation!)
      const account = await accountFor(store, email!)
      if ((await store.listMemberships(account.id)).includes(organization)) {
        return `${account.email} is already a member of ${organization}`
      }
      // Whoever registered the address first holds an unverified account: it may not be the address's owner.
      if (account.emailVerifiedAt === null && !flags.has('--allow-unverified')) {
        throw new CommandError(`${account.email} has never been verified, so the account may not belong to the address's owner; ` +
          'ask them to verify it (the link sent at registration, or a new one from the login page), or, if you have checked ' +
          'who holds it, run verify-email first or add --allow-unverified')
      }
      await store.addMembership(account.id, organization)
      return `${account.email} is now a member of ${organization}`
    }
  },
  'remove-member': {
    parameters: ['email', 'organisation'],
    async run (store, [email, organisation]) {
      const organization = organizationArgument(organisation!)
      const account = await accountFor(store, email!)
      const memberships = await store.listMemberships(account.id)
      if (!memberships.includes(organization)) {
        const current = memberships.length === 0 ? 'no organisation' : memberships.join(', ')
        throw new CommandError(`${account.email} is not a member of ${organization} (member of: ${current})`)
      }
      await store.removeMembership(account.id, organization)
      // Auth tokens already issued keep their orgs claim until they expire.
      return `${account.email} is no longer a member of ${organization}; tokens already issued end within 15 minutes`
    }
  },
  'require-second-factor': {
    parameters: ['organisation'],
    async run (store, [organisation]) {
      const organization = organizationArgument(organisation!)
      await store.setOrganizationRequiresSecondFactor(organization, true)
      auditLine('second-factor.required', { organization })
      return `members of ${organization} now need a second factor: those without one enrol at their next password or Google sign-in`
    }
  },
  'allow-without-second-factor': {
    parameters: ['organisation'],
    async run (store, [organisation]) {
      const organization = organizationArgument(organisation!)
      await store.setOrganizationRequiresSecondFactor(organization, false)
      auditLine('second-factor.no-longer-required', { organization })
      return `${organization} no longer requires a second factor; members who enrolled one keep it`
    }
  }
}
