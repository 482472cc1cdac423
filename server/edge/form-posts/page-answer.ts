import type { FastifyReply, FastifyRequest } from 'fastify'
import type { PageFormState } from '../../../common/page-render.js'

/**
 * Answers a form post with the whole page rendered for `state` (the server-
 * rendered view, its nonce, CSP and headers), with `status`. Given to the
 * form-post route by the server, which builds it from the loaded renderer
 * (common/page-render.ts). It must keep the headers already on `reply`: the
 * backend's cookies set by the post's calls.
 */
export type FormPageAnswer = (request: FastifyRequest, reply: FastifyReply, page: { readonly status: number, readonly state: PageFormState }) => FastifyReply | Promise<FastifyReply>
