import type { SpecAccountsPath } from '../../common/http/accounts-paths.js'

/** A spec path of the accounts service on the page's origin; typed against the paths the edge proxies, so that a call the edge would refuse does not compile. */
export const accountsUrl = (path: SpecAccountsPath): string => `/accounts/${path}`
