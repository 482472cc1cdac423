import {
  parseLoginAnswer, parsePasswordLoginAnswer, type LoginAnswer, type PasswordLoginAnswer
} from '../../common/http/accounts-answers.js'
import { accountsUrl } from '../http/accounts-url.js'
import { postJson } from '../http/post-json.js'

/*
 * The password login calls (docs/accounts-api.md, "The calls"), one plain
 * async function each, with their request bodies. Every function answers with
 * a union parsed in common/http/accounts-answers.ts and never throws;
 * client/http/post-json.ts is the one place that calls fetch.
 */

/** The context every login call carries. */
export interface LoginContextFields {
  readonly insecure_allowed_orgs: readonly string[]
  readonly resource_type: string | null
  readonly cluster_name: string | null
}

export interface LoginPayload extends LoginContextFields {
  readonly email: string
  readonly password: string
}

/** Email and password login (`v2/login`); the accounts service may refuse an address not verified yet. */
export async function login (payload: LoginPayload): Promise<PasswordLoginAnswer> {
  return parsePasswordLoginAnswer(await postJson(accountsUrl('v2/login'), payload))
}

/**
 * Login in local-network mode: the payload goes straight from the browser to
 * `{scheme}://{host}:{port}/authenticate`, a URL already checked against the
 * allowed hosts (common/sign-in/local-accounts.ts). No cookies travel.
 */
export async function localLogin (authenticateUrl: string, payload: LoginPayload): Promise<LoginAnswer> {
  return parseLoginAnswer(await postJson(authenticateUrl, payload, { mode: 'cors', credentials: 'omit' }))
}
