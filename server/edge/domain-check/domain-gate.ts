import type { FastifyReply, FastifyRequest } from 'fastify'
import { emailDomain } from '../../../common/domain-check/email-domain.js'
import type { MessageKey } from '../../../common/languages/message-catalogue.js'
import { CheckDomainAuthorizationRequest } from '../../../proto/edgeauth/v1/edge_auth_metadata_pb.js'
import { CHECK_DOMAIN_AUTHORIZATION_PATH } from '../../../proto/edgeauth/v1/edge_auth_metadata_service.js'
import { DATA_FRAME, encodeFrame } from '../../shared/domain-check/grpc-web-frames.js'
import { readDomainCheckAnswer } from './domain-check-call.js'
import { callEdgeRoute } from '../no-script/inner-call.js'

/** A login's refusal by the domain check, as the page words it (a catalogue key), with the status the edge's own enforcement gives it. */
interface DomainRefusal {
  readonly status: number
  readonly key: MessageKey
}

/** Refuses a login (or an SSO start) with a refusal, or lets it go on (null). */
export type DomainGate = (email: string) => Promise<DomainRefusal | null>

const NOT_AUTHORIZED: DomainRefusal = { status: 403, key: 'error.DOMAIN_NOT_AUTHORIZED' }
const CHECK_FAILED: DomainRefusal = { status: 503, key: 'error.DOMAIN_AUTH_CHECK_FAILED' }

const openGate: DomainGate = async () => null

/**
 * The domain authorization check (docs/accounts-api.md, "The domain check")
 * as the page runs it when its address says `supports_domain_auth_check=true`
 * (client/domain-check/useDomainCheck.ts): the domain after the email's last @, asked through the edge's gRPC-web
 * route the page calls (so its rate limit and metrics apply), within the
 * page's DOMAIN_CHECK_TIMEOUT_MS when one is set. Authorized or unspecified
 * go on; unauthorized is refused with the spec's text; a check that fails or
 * answers a value this edge does not know refuses with the check-failed text.
 */
export function domainGate (request: FastifyRequest, reply: FastifyReply, options: { readonly enabled: boolean, readonly timeoutMs: number | null }): DomainGate {
  if (!options.enabled) return openGate
  return async (email) => {
    const message = new CheckDomainAuthorizationRequest().setDomain(emailDomain(email)).serializeBinary()
    const call = callEdgeRoute(request, reply, {
      url: CHECK_DOMAIN_AUTHORIZATION_PATH,
      contentType: 'application/grpc-web+proto',
      headers: { accept: 'application/grpc-web+proto', 'x-grpc-web': '1' },
      body: encodeFrame(DATA_FRAME, message)
    }).then((answer) => readDomainCheckAnswer(answer))
    // Past the deadline the call's end is no one's to hear.
    call.catch(() => undefined)
    let timer: NodeJS.Timeout | undefined
    const deadline = options.timeoutMs === null
      ? null
      : new Promise<'timed out'>((resolve) => { timer = setTimeout(() => resolve('timed out'), options.timeoutMs!) })
    try {
      const authorization = await (deadline === null ? call : Promise.race([call, deadline]))
      if (authorization === 'authorized' || authorization === 'unspecified') return null
      return authorization === 'unauthorized' ? NOT_AUTHORIZED : CHECK_FAILED
    } catch {
      // The route has logged and counted the failed call (server/edge/upstream/grpc-web-proxy.ts), as for the page's.
      return CHECK_FAILED
    } finally {
      clearTimeout(timer)
    }
  }
}
