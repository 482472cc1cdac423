import { randomBytes } from 'node:crypto'

/** The context fields every login call carries, as the page sends them with no `allowed_org` in its address. */
export const NO_CONTEXT = Object.freeze({ insecure_allowed_orgs: [] as string[], resource_type: null, cluster_name: null })

/** A random suffix for the addresses, organisations and ids the check makes up. */
export const randomName = (): string => randomBytes(6).toString('hex')

/** An address no backend has an account for: a made-up name in example.com, a domain that takes no mail. */
export const unknownAddress = (): string => `conformance-unknown-${randomName()}@example.com`
