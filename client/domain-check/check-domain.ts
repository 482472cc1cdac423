import type { DomainCheckOutcome } from './check-domain-authorization.js'
import { GRPC_UNAVAILABLE } from '../../common/domain-check/grpc-unavailable.js'
import { loadChunk } from '../page/load-chunk.js'

export type { DomainCheckOutcome }

type DomainCheckModule = typeof import('./check-domain-authorization.js')

let loading: Promise<DomainCheckModule> | null = null

/**
 * Starts downloading the domain-check chunk. Called as soon as the page
 * knows the check is enabled, so that the check adds no visible delay.
 */
export function preloadDomainCheck (): Promise<DomainCheckModule> {
  loading ??= loadChunk(() => import('./check-domain-authorization.js'))
  loading.catch(() => { loading = null })
  return loading
}

/** The domain authorization check (docs/accounts-api.md, "The domain check"); a chunk that fails to load counts as a failed call. */
export async function checkDomain (domain: string, timeoutMs: number | null): Promise<DomainCheckOutcome> {
  let module: DomainCheckModule
  try {
    module = await preloadDomainCheck()
  } catch {
    return { kind: 'failed', code: GRPC_UNAVAILABLE }
  }
  return module.checkDomainAuthorization(domain, { origin: window.location.origin, timeoutMs })
}
