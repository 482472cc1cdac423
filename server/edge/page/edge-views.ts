import type { FastifyReply, FastifyRequest } from 'fastify'
import { ACCOUNT_VIEW } from '../account/account-view.js'
import { SIGN_OUT_VIEW } from '../sessions/sign-out-page.js'

/**
 * The views the edge answers itself, through Fastify rather than the hot
 * path (hot-path.ts): the sign-out page (server/edge/sessions/sign-out-page.ts), which is the edge's own
 * and carries no scripts, and the account view (server/edge/account/account-view.ts), rendered
 * with the visitor's account fetched first.
 */
const EDGE_VIEWS = [SIGN_OUT_VIEW, ACCOUNT_VIEW] as const

export type EdgeView = typeof EDGE_VIEWS[number]

/** Answers one of the edge's views. */
export type EdgeViewAnswers = Readonly<Record<EdgeView, (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> | FastifyReply>>

const EDGE_VIEW_NAMES: ReadonlySet<string> = new Set(EDGE_VIEWS)

/**
 * The edge's view a query (without `?`) asks for, or null. Read as the page
 * reads `view` (URLSearchParams, percent-decoded); a query that neither
 * names `view` nor holds an escape cannot ask for one, and is not parsed:
 * the hot path asks on every page view.
 */
export function edgeViewOf (query: string): EdgeView | null {
  if (!query.includes('view') && !query.includes('%')) return null
  const view = new URLSearchParams(query).get('view')
  return view !== null && EDGE_VIEW_NAMES.has(view) ? view as EdgeView : null
}
